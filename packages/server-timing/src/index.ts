/**
 * @kneeboard/server-timing — `Server-Timing: queue;dur=…, compute;dur=…` on every response of a
 * Node service, so a Kneeboard sweep (or any client) can split its latency into the server's queue,
 * its compute, and the rest (the network, the client).
 */
export { serverTiming } from './fastify.ts';
export { serverTimingMiddleware } from './express.ts';
export { arrivalTime, markHandlerStart, serverTimingValue } from './timing.ts';
