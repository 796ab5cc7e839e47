import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { sendTimedRequest, type RequestOutcome, type TargetRequest } from './send-request.ts';

export interface ClosedLoopOptions {
  /** Concurrency: exactly this many requests are in flight while the loop runs. */
  level: number;
  /** Must allow `level` requests at once (a Pool with connections ≥ level, pipelining 1). */
  dispatcher: Dispatcher;
  request: TargetRequest;
  /** performance.now() after which no new request is sent. */
  stopSendingAt: number;
  /** Cancels requests in flight (Ctrl-C); cancelled requests are not reported. */
  signal: AbortSignal;
  onOutcome: (outcome: RequestOutcome) => void;
}

/**
 * Closed loop: `level` workers, each sending its next request the moment the previous one ends.
 * Resolves when every worker has finished its last request, so the next level starts from zero.
 */
export async function runClosedLoop(o: ClosedLoopOptions): Promise<void> {
  // Each in-flight request listens on the signal; more than Node's default 10 is expected here.
  setMaxListeners(o.level + 10, o.signal);
  const worker = async (): Promise<void> => {
    while (performance.now() < o.stopSendingAt && !o.signal.aborted) {
      const outcome = await sendTimedRequest(o.dispatcher, o.request, o.signal);
      if (outcome === null) return;
      o.onOutcome(outcome);
    }
  };
  await Promise.all(Array.from({ length: o.level }, worker));
}
