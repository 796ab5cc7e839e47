import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { FieldIssue } from '@kneeboard/contracts';
import { BatchRejected } from '@kneeboard/event-wire';
import { errorBody, HttpError } from '../errors.ts';

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
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
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
    if (status >= 500) {
      req.log.error({ err }, 'request failed');
      return reply.code(500).send(errorBody(500, 'internal error; see the API log'));
    }
    // Fastify's own 4xx (malformed JSON, wrong content type, body too large) keep their status.
    return reply.code(status).send(errorBody(status, `body: ${err.message}`, 'body'));
  });
}
