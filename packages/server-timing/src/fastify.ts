import { appendServerTiming, markArrival, markHandlerStartIfUnset, serverTimingValue } from './timing.ts';

/** The few Fastify shapes used here, so the package needs no Fastify at run time. */
interface FastifyLike {
  addHook(name: 'onRequest', fn: (req: { headers: Record<string, string | string[] | undefined> }, reply: { raw: import('node:http').ServerResponse }) => Promise<void>): unknown;
  addHook(name: 'preHandler', fn: (req: unknown, reply: { raw: import('node:http').ServerResponse }) => Promise<void>): unknown;
  addHook(
    name: 'onSend',
    fn: (req: unknown, reply: { raw: import('node:http').ServerResponse; getHeader(n: string): number | string | string[] | undefined; header(n: string, v: string): unknown }, payload: unknown) => Promise<unknown>,
  ): unknown;
}

/**
 * A Fastify plugin: every response gets `Server-Timing: queue;dur=…, compute;dur=…`. Arrival is
 * `onRequest` (or the proxy's X-Request-Start), the handler's start is `preHandler` (after
 * parsing and validation: those are not the app's work) unless the app calls markHandlerStart
 * later, and compute ends at `onSend`, when the headers are about to go.
 * Register it at the root: `app.register(serverTiming)`. It applies to the whole app (it skips
 * Fastify's encapsulation, as fastify-plugin would).
 */
export async function serverTiming(app: FastifyLike, options: { requestStartHeader?: string } = {}): Promise<void> {
  const header = (options.requestStartHeader ?? 'x-request-start').toLowerCase();
  app.addHook('onRequest', async (req, reply) => markArrival(reply.raw, req.headers[header]));
  app.addHook('preHandler', async (_req, reply) => markHandlerStartIfUnset(reply.raw));
  app.addHook('onSend', async (_req, reply, payload) => {
    const value = serverTimingValue(reply.raw);
    if (value !== null) reply.header('server-timing', appendServerTiming(reply.getHeader('server-timing'), value));
    return payload;
  });
}
(serverTiming as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;
