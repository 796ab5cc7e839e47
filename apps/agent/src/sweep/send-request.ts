import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { describeCause } from '../recorder/api-errors.ts';
import { parseServerTiming } from '../recorder/server-timing.ts';

export interface TargetRequest {
  /** Path and query, e.g. `/search?q=1`; the origin is the dispatcher's. */
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  /** Longest wait for the response headers, and for each next piece of the body. */
  timeoutMs: number;
}

export interface RequestOutcome {
  /** HTTP status; 0 when the request failed below HTTP. */
  status: number;
  /** From just before the request is handed to the pool to the end of the response body. */
  latencyMs: number;
  /** Epoch ms, sub-millisecond: performance.timeOrigin + performance.now() at completion. */
  completedAtMs: number;
  computeMs: number | null;
  queueMs: number | null;
  serverTimingUnparseable: boolean;
  responseBytes: number;
  /** Why it counts as an error (`ECONNRESET`, `HTTP 503`…), or null for a success (status 1–399). */
  errorKind: string | null;
}

/**
 * One timed request. Never throws: a failure is an outcome with status 0, so it is recorded and
 * counted, not lost. Returns null only when `stop` cancelled it — that request said nothing about
 * the target.
 */
export async function sendTimedRequest(dispatcher: Dispatcher, req: TargetRequest, stop: AbortSignal): Promise<RequestOutcome | null> {
  const startedAt = performance.now();
  try {
    const res = await dispatcher.request({
      path: req.path,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body,
      signal: stop,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    let responseBytes = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) responseBytes += chunk.length;
    const endedAt = performance.now();
    const timing = parseServerTiming(res.headers['server-timing']);
    return {
      status: res.statusCode,
      latencyMs: endedAt - startedAt,
      completedAtMs: performance.timeOrigin + endedAt,
      computeMs: timing.computeMs,
      queueMs: timing.queueMs,
      serverTimingUnparseable: timing.unparseable,
      responseBytes,
      errorKind: res.statusCode >= 400 ? `HTTP ${res.statusCode}` : null,
    };
  } catch (err) {
    if (stop.aborted) return null;
    const endedAt = performance.now();
    return {
      status: 0,
      latencyMs: endedAt - startedAt,
      completedAtMs: performance.timeOrigin + endedAt,
      computeMs: null,
      queueMs: null,
      serverTimingUnparseable: false,
      responseBytes: 0,
      errorKind: describeCause(err),
    };
  }
}
