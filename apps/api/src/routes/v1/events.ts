import type { FastifySchemaCompiler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ARROW_STREAM_CONTENT_TYPE, ENDPOINTS, type EventsQuery } from '@kneeboard/contracts';
import type { Arrival } from '@kneeboard/clickhouse';
import type { RouteDeps } from '../../deps.ts';
import { HttpError } from '../../errors.ts';
import { onBodyStart } from '../../plugins/body-budget.ts';
import type { IncomingBatch } from '../../ingest/ingest-service.ts';
import { routeOf } from '../endpoint-route.ts';

/** Params and query string are checked by their zod schemas as usual; the body is passed on as parsed. */
const bodyLeftToIngest: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);

/**
 * The name of a query parameter whose percent-encoding is not UTF-8 (`?agent_id=%FF%FE`), or null.
 * Fastify's parser keeps such a value as the raw text `%FF%FE` — a name nobody sent — so the raw
 * query string is decoded here, and a value that does not decode is refused.
 */
function undecodableQueryParam(url: string): string | null {
  const at = url.indexOf('?');
  if (at === -1) return null;
  for (const pair of url.slice(at + 1).split('&')) {
    const eq = pair.indexOf('=');
    const key = eq === -1 ? pair : pair.slice(0, eq);
    try {
      decodeURIComponent(pair.replace(/\+/g, ' '));
    } catch {
      return /^[\w.-]+$/.test(key) ? key : '';
    }
  }
  return null;
}

function incoming(contentType: string | undefined, body: unknown, query: z.infer<typeof EventsQuery>): IncomingBatch {
  if (!(body instanceof Buffer)) return { kind: 'json', body };
  if (contentType?.split(';')[0]?.trim().toLowerCase() !== ARROW_STREAM_CONTENT_TYPE) throw new HttpError(415, `expected application/json or ${ARROW_STREAM_CONTENT_TYPE}`, 'content-type');
  if (query.batch_id === undefined) throw new HttpError(400, `required with ${ARROW_STREAM_CONTENT_TYPE}`, 'querystring.batch_id');
  if (query.agent_id === undefined) throw new HttpError(400, `required with ${ARROW_STREAM_CONTENT_TYPE}`, 'querystring.agent_id');
  return { kind: 'arrow', bytes: body, batch_id: query.batch_id, agent_id: query.agent_id };
}

export const eventRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { ingest, limits }) => {
  /** Each request's arrival in the store, from its first byte to its batch being queued (or its end). */
  const arrivals = new WeakMap<object, Arrival>();
  const arrived = (req: object) => arrivals.get(req)?.release();

  // A full batch (100,000 events) is about 8 MB of JSON: the limit (16 MiB by default) leaves room for it and no more.
  app.addContentTypeParser(ARROW_STREAM_CONTENT_TYPE, { parseAs: 'buffer', bodyLimit: limits.eventsBodyBytes }, (_req, body, done) => done(null, body));

  app.route({
    ...routeOf(ENDPOINTS.postEvents),
    bodyLimit: limits.eventsBodyBytes,
    // The body is checked column by column by the ingest service (one pass, no object per event);
    // EventBatch above documents it. Params and query string are checked as usual.
    validatorCompiler: bodyLeftToIngest,
    // Counted from the body's first byte, before it is all read: the insert in progress may wait for
    // it. Not from the headers: a request announcing a batch and sending nothing must not hold groups back.
    preParsing: async (req) => onBodyStart(req, () => arrivals.set(req, ingest.expectBatch())),
    onResponse: async (req) => arrived(req),
    onRequestAbort: async (req) => arrived(req),
    handler: async (req) => {
      try {
        const undecodable = undecodableQueryParam(req.url);
        if (undecodable !== null) {
          throw new HttpError(400, 'is not valid UTF-8 once percent-decoded; percent-encode the UTF-8 bytes of the text', undecodable === '' ? 'querystring' : `querystring.${undecodable}`);
        }
        // The arrival travels with its batch; the store tells the live views once the batch is stored.
        return await ingest.ingest(req.params.id, { ...incoming(req.headers['content-type'], req.body, req.query), arrival: arrivals.get(req) });
      } finally {
        arrived(req);
      }
    },
  });
};
