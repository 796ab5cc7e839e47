import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.ts';
import { LIMIT_VARS, type Limits } from './limits.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Bytes of the body budget this request holds until it is answered or aborted. */
    bodyReservation?: number;
  }
}

/**
 * Bodies being read and parsed at once, in bytes: each request reserves its Content-Length (or
 * its route's body limit when chunked) before its body is read, and gives it back when answered.
 * The per-route body limits bound one request; this bounds them all together, so forty clients
 * sending full batches at once cost a known amount of memory rather than gigabytes. Over it a
 * 429 with Retry-After: agents retry the same batch a moment later.
 */
export function registerBodyBudget(app: FastifyInstance, limits: Limits): { readonly inFlight: number } {
  let inFlight = 0;
  const release = (req: FastifyRequest) => {
    if (req.bodyReservation === undefined) return;
    inFlight -= req.bodyReservation;
    req.bodyReservation = undefined;
  };
  app.addHook('onRequest', async (req) => {
    const declared = req.headers['content-length'];
    const chunked = /chunked/i.test(req.headers['transfer-encoding'] ?? '');
    if (declared === undefined && !chunked) return;
    const routeLimit = req.routeOptions.bodyLimit ?? limits.bodyBytes;
    // Past the route's limit the body is refused (413) before it is read: nothing to reserve.
    const bytes = chunked ? routeLimit : Math.min(Number(declared) || 0, routeLimit);
    if (bytes === 0) return;
    if (inFlight + bytes > limits.bodyBudgetBytes) {
      throw new HttpError(429, `${inFlight} bytes of request bodies are being read; at most ${limits.bodyBudgetBytes} at once (${LIMIT_VARS.bodyBudgetBytes}); try again in a second`, 'body', undefined, 1);
    }
    inFlight += bytes;
    req.bodyReservation = bytes;
  });
  app.addHook('onResponse', async (req) => release(req));
  app.addHook('onRequestAbort', async (req) => release(req));
  return {
    get inFlight() {
      return inFlight;
    },
  };
}
