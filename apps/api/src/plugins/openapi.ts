import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/** OpenAPI is generated from the routes' zod schemas, never written by hand; served at /openapi.json. */
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
    transform: jsonSchemaTransform,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
