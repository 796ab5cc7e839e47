import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * Where one request's time went, on the server: `queue` from its arrival to the start of the work
 * that answers it, `compute` from there to the response headers. Kept per response object (the raw
 * Node one, which Fastify and Express both have), so nothing leaks across requests.
 */
interface Marks {
  arrivedAt: number;
  handlerAt: number | undefined;
}

const marks = new WeakMap<ServerResponse, Marks>();

/**
 * The request's arrival. A proxy in front (nginx `proxy_set_header X-Request-Start "t=${msec}"`,
 * Heroku, New Relic's convention) stamps when *it* got the request, so time spent waiting in the
 * proxy and the server's accept queue counts as queue too; without one, the moment the server first
 * saw the request. A stamp in the future (clock skew) is ignored.
 */
export function arrivalTime(headerValue: string | string[] | undefined, now = performance.now(), wallNow = Date.now()): number {
  const raw = Array.isArray(headerValue) ? headerValue[0] : headerValue;
  if (raw === undefined) return now;
  const m = /^\s*(?:t=)?(\d+(?:\.\d+)?)\s*$/.exec(raw);
  if (!m) return now;
  const v = Number(m[1]);
  // Seconds, milliseconds or microseconds since the epoch, told apart by size.
  const epochMs = v < 1e11 ? v * 1_000 : v < 1e14 ? v : v / 1_000;
  // The stamp's age on the wall clock, then that far back on performance.now()'s: not
  // `epochMs - performance.timeOrigin`, which a suspend of this long-lived server would move (the
  // monotonic clock stops, the wall clock does not), turning every stamp into a future one.
  // Date.now() truncates to the ms, so a stamp of this very ms may read up to 1 ms ahead.
  const ageMs = wallNow - epochMs;
  if (ageMs < -1 || ageMs >= 3_600_000) return now;
  return now - Math.max(0, ageMs);
}

/** Call when the request arrives (the first hook or middleware). */
export function markArrival(res: ServerResponse, requestStartHeader?: string | string[]): void {
  marks.set(res, { arrivedAt: arrivalTime(requestStartHeader), handlerAt: undefined });
}

/**
 * Call when the work for this request starts: after a concurrency limiter, a worker-pool wait, a
 * lock. The framework integrations mark the handler's start by default; calling this later moves
 * the boundary (the last call wins), so queue includes the app's own waiting.
 */
export function markHandlerStart(res: ServerResponse): void {
  const m = marks.get(res);
  if (m) m.handlerAt = performance.now();
}

/** Marks the handler start only if the app has not marked it itself. */
export function markHandlerStartIfUnset(res: ServerResponse): void {
  const m = marks.get(res);
  if (m && m.handlerAt === undefined) m.handlerAt = performance.now();
}

const round = (ms: number) => Math.round(Math.max(0, ms) * 1000) / 1000;

/** The `Server-Timing` value for this response, now: `queue;dur=…, compute;dur=…` (ms), or null if it was never marked. */
export function serverTimingValue(res: ServerResponse, now = performance.now()): string | null {
  const m = marks.get(res);
  if (!m) return null;
  const handlerAt = m.handlerAt ?? now;
  return `queue;dur=${round(handlerAt - m.arrivedAt)}, compute;dur=${round(now - handlerAt)}`;
}

/** Adds our entries to whatever Server-Timing the app already set (several entries are allowed). */
export function appendServerTiming(existing: number | string | string[] | undefined, value: string): string {
  const before = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  return [...before, value].join(', ');
}
