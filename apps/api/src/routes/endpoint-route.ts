import type { EndpointSpec } from '@kneeboard/contracts';

type Part<E, K extends string> = E extends { [P in K]: infer S } ? S : undefined;

/** The Fastify schema of a table row: what validation, serialisation and the OpenAPI document read. */
export interface EndpointSchema<E extends EndpointSpec> {
  summary?: string;
  description?: string;
  tags?: string[];
  params: Part<E, 'params'>;
  querystring: Part<E, 'query'>;
  body: Part<E, 'body'>;
  response: Part<E, 'responses'>;
  produces?: string[];
  hide?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The endpoint table's row this route was registered from (access/auth.ts decides by it). */
    endpoint?: EndpointSpec;
  }
}

/**
 * A route's method, URL and schema from its row in the endpoint table (contracts), so a route file
 * holds its handler and nothing about the HTTP surface: `app.route({ ...routeOf(ENDPOINTS.x), handler })`.
 */
export function routeOf<const E extends EndpointSpec>(ep: E) {
  const schema: Record<string, unknown> = {};
  if (ep.summary !== undefined) schema.summary = ep.summary;
  if (ep.description !== undefined) schema.description = ep.description;
  if (ep.tags !== undefined) schema.tags = [...ep.tags];
  if (ep.params !== undefined) schema.params = ep.params;
  if (ep.query !== undefined) schema.querystring = ep.query;
  if (ep.body !== undefined) schema.body = ep.body;
  if (ep.responses !== undefined) schema.response = ep.responses;
  if (ep.produces !== undefined) schema.produces = [ep.produces];
  if (ep.hidden) schema.hide = true;
  return { method: ep.method as E['method'], url: ep.path as E['path'], schema: schema as unknown as EndpointSchema<E>, config: { endpoint: ep as EndpointSpec } };
}
