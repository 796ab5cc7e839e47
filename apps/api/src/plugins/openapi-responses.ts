import { ENDPOINTS, LIVE_EVENT } from '@kneeboard/contracts';

/**
 * What the OpenAPI document adds to each route's own declarations, so it lists every answer a
 * client can really get. The shared plugins answer on every route, whatever its handler does:
 *   400  schema validation (params, query, body) and malformed JSON    (error-handler)
 *   401/403  a missing, wrong or too narrow token under /api/v1        (access/auth)
 *   404  an unknown id in the path, or a run a comparison's query names (the handlers)
 *   408  a body that does not start in time, or is not done in time  (body-budget, the server's request timeout)
 *   413/415  a body over the limit or of another content type          (Fastify, limits)
 *   421  a server without tokens addressed by a name that is not loopback (access/host-guard)
 *   431  a URL and headers over Node's 16 KiB, before any route is found (a long query string)
 *   429  over the rate limit (shared servers), the body budget, or a cap on streams and comparisons
 *   503  ClickHouse unreachable; 507 storage full, on writes           (storage-errors)
 */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

interface RouteSchema {
  querystring?: unknown;
  body?: unknown;
  params?: unknown;
  produces?: readonly string[];
}

/** A query that names runs (a comparison's `base`): an unknown one is a 404 like an unknown id. */
function namesRuns(query: unknown): boolean {
  const shape = (query as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape !== undefined && 'base' in shape;
}

export function documentedErrors(method: string, url: string, schema: RouteSchema): number[] {
  const codes: number[] = [];
  const hasParams = url.includes(':');
  const hasBody = BODY_METHODS.has(method);
  if (hasParams || schema.querystring || schema.body || hasBody) codes.push(400);
  if (url.startsWith('/api/')) codes.push(401, 403, 429);
  if (hasParams || namesRuns(schema.querystring)) codes.push(404);
  if (hasBody) codes.push(408, 413, 415);
  // Any route, before anything else is looked at, when the server is open (KNEEBOARD_ALLOWED_HOSTS).
  codes.push(421, 431);
  codes.push(503);
  if (method !== 'GET') codes.push(507);
  return codes;
}

/** The media type of a route's success when it is not JSON (declared with `produces`). */
export function mediaOf(schema: RouteSchema): string | undefined {
  const media = schema.produces?.[0];
  return media && media !== 'application/json' ? media : undefined;
}

type Schema = { properties?: Record<string, Schema>; required?: string[]; [key: string]: unknown };

/**
 * A success body's schema by media type. An event stream is described one event at a time (its
 * `event` name and its `data` line, JSON text): what an SSE client, schemathesis included, checks.
 */
const MEDIA_SCHEMAS: Record<string, Schema> = {
  'image/png': { type: 'string', format: 'binary' },
  'text/event-stream': { type: 'object', properties: { event: { type: 'string', enum: Object.values(LIVE_EVENT) }, data: { type: 'string' } } },
};

type Operation = { 'x-media'?: string; responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }> };
type Document = { paths?: Record<string, Record<string, Operation>> };

/** What access/run-status.ts leaves out of a run for an ingest token. */
const NOT_IN_STATUS = ['labels', 'note'];

/**
 * GET /runs/{id} answers an `ingest` token (where tokens are required) with the run's status alone,
 * `{ run }` without the labels and note people added (access/run-status.ts): its 200 is either
 * shape. Derived from the RunDetail's own `run`, so the two cannot drift.
 */
function withIngestStatus(op: Operation | undefined): void {
  const json = op?.responses?.['200']?.content?.['application/json'];
  const run = json?.schema?.properties?.run;
  if (!json?.schema || !run) return;
  const properties = Object.fromEntries(Object.entries(run.properties ?? {}).filter(([k]) => !NOT_IN_STATUS.includes(k)));
  const status: Schema = { ...run, properties, required: (run.required ?? []).filter((k) => !NOT_IN_STATUS.includes(k)) };
  json.schema = { anyOf: [json.schema, { type: 'object', properties: { run: status }, required: ['run'], additionalProperties: false }] };
}

/** A table path as the document spells it: `:id` → `{id}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** After conversion: non-JSON successes get their media type; a 204 has no body; an ingest token's run status. */
export function patchDocument<T>(doc: T): T {
  withIngestStatus((doc as Document).paths?.[openApiPath(ENDPOINTS.getRun.path)]?.get);
  for (const ops of Object.values((doc as Document).paths ?? {})) {
    for (const op of Object.values(ops)) {
      const responses = (op.responses ??= {});
      const media = op['x-media'];
      if (media) {
        delete op['x-media'];
        const schema = MEDIA_SCHEMAS[media] ?? { type: 'string' };
        responses['200'] = { description: responses['200']?.description ?? 'Default Response', content: { [media]: { schema } } };
      }
      // A route without a declared success still answers 200 (its errors are documented above).
      if (!Object.keys(responses).some((code) => code.startsWith('2'))) responses['200'] = { description: 'Default Response' };
      const noContent = responses['204'];
      if (noContent) responses['204'] = { description: noContent.description ?? 'No Content' };
    }
  }
  return doc;
}
