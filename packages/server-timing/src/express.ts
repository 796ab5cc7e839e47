import type { IncomingMessage, ServerResponse } from 'node:http';
import { appendServerTiming, markArrival, markHandlerStartIfUnset, serverTimingValue } from './timing.ts';

/**
 * Express (or Connect, or plain node:http) middleware: every response gets
 * `Server-Timing: queue;dur=…, compute;dur=…`. Mount it first. Arrival is when it runs (or the
 * proxy's X-Request-Start); the handler's start is when the app calls markHandlerStart(res) —
 * after its limiter or pool wait — or else when this middleware passes the request on; compute ends
 * when the response headers are written.
 */
export function serverTimingMiddleware(options: { requestStartHeader?: string } = {}) {
  const header = (options.requestStartHeader ?? 'x-request-start').toLowerCase();
  return (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void => {
    markArrival(res, req.headers[header]);
    const writeHead = res.writeHead;
    // writeHead is where headers leave, whichever way the app answers (send, json, end, pipe).
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      const value = serverTimingValue(res);
      if (value !== null && !res.headersSent) res.setHeader('server-timing', appendServerTiming(res.getHeader('server-timing'), value));
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof res.writeHead;
    markHandlerStartIfUnset(res);
    next();
  };
}
