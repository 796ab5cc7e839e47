import { Transform, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccessConfig } from '../access/config.ts';
import { HttpError } from '../errors.ts';
import { clientKey } from './client-key.ts';
import { LIMIT_VARS, type Limits } from './limits.ts';

/** What one request holds of the budget: the bytes of its body received so far, and for whom. */
interface BodyHold {
  key: string;
  bytes: number;
  /** Stops the wait for the body's first byte. */
  stop(): void;
  /** Called once, at the body's first byte. */
  onStart: (() => void)[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body bytes this request holds until it is answered or aborted. */
    bodyHold?: BodyHold;
  }
}

/**
 * Runs `fn` when the request's body starts to arrive (never, for one that does not): for work that
 * is worth waiting for only once a body is really on its way. Call from a route's preParsing hook.
 */
export function onBodyStart(req: FastifyRequest, fn: () => void): void {
  req.bodyHold?.onStart.push(fn);
}

export interface BodyBudget {
  /** Body bytes received and not yet answered, all clients together. */
  readonly inFlight: number;
}

const hasBody = (headers: FastifyRequest['headers']) => headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;

/**
 * Request bodies in memory at once, in bytes, in total and per client. Bytes are counted as they
 * arrive, never from Content-Length: a client that announces 16 MiB and sends nothing holds
 * nothing (seventeen such connections used to take the whole default budget and turn every write
 * into a 429 until the request timeout). A body that does not start within
 * KNEEBOARD_BODY_START_TIMEOUT_S of its headers is cut (408, connection closed). Counted in
 * preParsing, after the token check (onRequest), so a request without a valid token never holds
 * a byte, and per token on a server that requires tokens, so one client cannot take it all.
 * Bytes are given back when the request is answered. Over a budget: 429 with Retry-After, and
 * agents send the same batch again a moment later.
 */
export function registerBodyBudget(app: FastifyInstance, limits: Limits, access: Pick<AccessConfig, 'mode'>): BodyBudget {
  let inFlight = 0;
  const perClient = new Map<string, number>();
  // On the open loopback default every client is this machine's user: the total is the bound.
  const clientCap = access.mode === 'required' ? limits.bodyBudgetPerClientBytes : Number.POSITIVE_INFINITY;

  const take = (hold: BodyHold, n: number): HttpError | null => {
    if (inFlight + n > limits.bodyBudgetBytes) {
      return new HttpError(429, `${inFlight} bytes of request bodies are being read; at most ${limits.bodyBudgetBytes} at once (${LIMIT_VARS.bodyBudgetBytes}); try again in a second`, 'body', undefined, 1);
    }
    const mine = perClient.get(hold.key) ?? 0;
    if (mine + n > clientCap) {
      return new HttpError(429, `${mine} bytes of this client's request bodies are being read; at most ${clientCap} per client at once (${LIMIT_VARS.bodyBudgetPerClientBytes}); try again in a second`, 'body', undefined, 1);
    }
    inFlight += n;
    perClient.set(hold.key, mine + n);
    hold.bytes += n;
    return null;
  };

  const release = (req: FastifyRequest) => {
    const hold = req.bodyHold;
    if (hold === undefined) return;
    req.bodyHold = undefined;
    hold.stop();
    inFlight -= hold.bytes;
    const left = (perClient.get(hold.key) ?? 0) - hold.bytes;
    if (left > 0) perClient.set(hold.key, left);
    else perClient.delete(hold.key);
  };

  app.addHook('preParsing', async (req, _reply, payload: Readable) => {
    if (!hasBody(req.headers)) return payload;
    // `waiting` is set below, before any byte can arrive (they come on a later turn of the event loop).
    const hold: BodyHold = { key: clientKey(req), bytes: 0, stop: () => clearTimeout(waiting), onStart: [] };
    req.bodyHold = hold;
    const metered = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hold.stop();
        if (hold.bytes === 0) for (const started of hold.onStart.splice(0)) started();
        const refused = take(hold, chunk.length);
        if (refused) done(refused);
        else done(null, chunk);
      },
    });
    const waiting = setTimeout(() => {
      metered.destroy(new HttpError(408, `no body arrived within ${limits.bodyStartTimeoutMs / 1000} s of the headers (${LIMIT_VARS.bodyStartTimeoutMs})`, 'body'));
    }, limits.bodyStartTimeoutMs);
    metered.on('close', hold.stop);
    // A client that goes away mid-body ends the read here too, rather than leaving it waiting.
    payload.on('error', (err) => metered.destroy(err));
    payload.pipe(metered);
    return metered;
  });
  // Answered before its body arrived (a 401, a 429, a 408): close the connection rather than let
  // Node read and discard an announced 16 MiB until the request timeout.
  app.addHook('onSend', async (req, reply) => {
    if (hasBody(req.headers) && !req.raw.complete) void reply.header('connection', 'close');
  });
  app.addHook('onResponse', async (req) => release(req));
  app.addHook('onRequestAbort', async (req) => release(req));
  return {
    get inFlight() {
      return inFlight;
    },
  };
}
