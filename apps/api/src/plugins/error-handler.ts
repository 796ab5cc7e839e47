import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { FieldIssue } from '@kneeboard/contracts';
import { BatchRejected } from '@kneeboard/event-wire';
import { errorBody, HttpError } from '../errors.ts';
import { LIMIT_VARS, type Limits } from './limits.ts';
import { RETRY_AFTER_S, storageTrouble } from './storage-errors.ts';

/** A batch can have 100,000 bad entries; the first few name the problem well enough. */
const MAX_ISSUES = 20;

/** `/latency_ms/3` → `latency_ms[3]`, the way the contracts name a columnar entry. */
function fieldOf(instancePath: string): string {
  let out = '';
  for (const part of instancePath.split('/').filter(Boolean)) {
    out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  }
  return out;
}

/** Every error leaves as the contracts' ApiError: a JSON body naming the offending field. */
export function registerErrorHandler(app: FastifyInstance, limits: Limits): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    // Refused from Content-Length before reading, or as soon as a chunked body passes the limit.
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = req.routeOptions.bodyLimit ?? limits.bodyBytes;
      const name = limit === limits.eventsBodyBytes && req.url.includes('/events') ? LIMIT_VARS.eventsBodyBytes : LIMIT_VARS.bodyBytes;
      return reply.code(413).send(errorBody(413, `body: larger than the limit of ${limit} bytes (${name})`, 'body'));
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext === 'body' ? '' : `${err.validationContext ?? ''}.`;
      const issues: FieldIssue[] = err.validation.slice(0, MAX_ISSUES).map((v) => {
        const field = fieldOf(v.instancePath);
        return { field: field === '' ? (err.validationContext ?? 'body') : `${where}${field}`, message: v.message ?? 'invalid' };
      });
      const first = issues[0] as FieldIssue;
      return reply.code(400).send(errorBody(400, `${first.field}: ${first.message}`, first.field, issues));
    }
    if (err instanceof HttpError) {
      const message = err.field ? `${err.field}: ${err.message}` : err.message;
      if (err.retryAfterS !== undefined) void reply.header('retry-after', String(err.retryAfterS));
      if (err.statusCode >= 500) req.log.warn({ err: err.cause ?? err }, err.message);
      return reply.code(err.statusCode).send(errorBody(err.statusCode, message, err.field, err.issues));
    }
    // An event batch refused column by column: the same 400 as a schema error, naming the entry.
    if (err instanceof BatchRejected) return reply.code(400).send(errorBody(400, err.message, err.field, err.issues));
    const status = err.statusCode ?? 500;
    // A read (or any route) that storage could not serve: say so, and when to try again.
    const trouble = status >= 500 ? storageTrouble(err) : null;
    if (trouble) {
      req.log.warn({ err }, `storage ${trouble}`);
      const code = trouble === 'full' ? 507 : 503;
      const message = trouble === 'full' ? 'storage is full; nothing was written. Free disk space and try again' : 'storage (ClickHouse) is unreachable; try again';
      return reply.code(code).header('retry-after', String(RETRY_AFTER_S[trouble])).send(errorBody(code, message));
    }
    if (status >= 500) {
      req.log.error({ err }, 'request failed');
      return reply.code(500).send(errorBody(500, 'internal error; see the API log'));
    }
    // Fastify's own 4xx (malformed JSON, wrong content type, body too large) keep their status.
    return reply.code(status).send(errorBody(status, `body: ${err.message}`, 'body'));
  });
}
