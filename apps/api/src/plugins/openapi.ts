import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { ApiError, ENDPOINTS } from '@kneeboard/contracts';
import { routeOf } from '../routes/endpoint-route.ts';
import { documentedErrors, mediaOf, patchDocument } from './openapi-responses.ts';

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

/**
 * OpenAPI is generated from the routes' zod schemas, never written by hand; served at /openapi.json.
 * Two additions make it say what the API really does (schemathesis checks it, apps/api/test/schemathesis):
 * every error the shared plugins can answer on a route (validation, auth, limits, storage) is
 * documented on it, and routes that answer SVG, CSV, Markdown, PNG or an event stream say so.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'Kneeboard API',
        description: 'Ingest request timings from load-test agents; read latency-versus-load curves.',
        version: '1.0.0',
      },
      // Writes need a token once tokens are required (beyond loopback, or KNEEBOARD_AUTH=required);
      // reads too with KNEEBOARD_READ=token. On loopback with no token set, none is needed.
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'kneeboard token create' } } },
      security: [{ bearer: [] }, {}],
    },
    transform: (input: TransformInput) => {
      const { schema, url, route } = input;
      if (!schema || schema.hide) return jsonSchemaTransform(input);
      const method = [route.method].flat()[0] ?? 'GET';
      const errors = Object.fromEntries(documentedErrors(method, url, schema).map((code) => [code, ApiError]));
      const media = mediaOf(schema);
      // A non-JSON success is described after conversion (patchDocument); `produces` would apply to the errors too.
      const { produces: _produces, ...rest } = schema as typeof schema & { produces?: unknown };
      const response = { ...errors, ...(rest.response as object | undefined) };
      return jsonSchemaTransform({ ...input, schema: { ...rest, response, ...(media ? { 'x-media': media } : {}) } });
    },
    transformObject: (doc) => patchDocument('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject),
  });
  app.route({ ...routeOf(ENDPOINTS.openApi), handler: async () => app.swagger() });
}
