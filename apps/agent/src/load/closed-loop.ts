import { performance } from 'node:perf_hooks';
import type { LoopHandle, LoopOptions } from './loop.ts';
import { fire } from './target-client.ts';

export interface ClosedLoopOptions extends LoopOptions {
  /** Exactly this many requests outstanding while the loop runs. */
  concurrency: number;
  /** Pause after each response before the worker's next request. */
  thinkTimeMs: number;
}

/**
 * Closed loop: `concurrency` workers, each sending its next request the moment the previous one
 * ends (after the think time, if any). Callback style rather than async workers: at 10,000 workers
 * a promise chain per request is measurable overhead. Latency runs from the send.
 */
export function startClosedLoop(o: ClosedLoopOptions): LoopHandle<void> {
  let stopAt = o.stopSendingAt;
  let cancelled = false;
  let active = o.concurrency;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const workerEnds = () => {
    active -= 1;
    if (active === 0) resolveDone();
  };

  const send = (): void => {
    const now = performance.now();
    if (cancelled || now >= stopAt) return workerEnds();
    let sent = false;
    // Each worker's next request is the mix's next pick (closed loop: per connection, per request).
    const index = o.mix ? o.mix.pick() : 0;
    fire(o.dispatcher, o.mix ? o.mix.requests[index]! : o.request, o.parseTiming, {
      onSent: (at) => {
        sent = true;
        o.gauge.up(at);
      },
      onDone: (c) => {
        if (sent) o.gauge.down(c.endedAt);
        if (cancelled) return workerEnds();
        o.onResult(now, c, index);
        // A failure before sending (refused, EMFILE) comes back fast: yield to I/O instead of
        // spinning, and never recurse inside the dispatcher's callback.
        if (o.thinkTimeMs > 0) setTimeout(send, o.thinkTimeMs);
        else if (c.sentAt === null) setImmediate(send);
        else send();
      },
    });
  };

  const startIn = Math.max(0, o.startAt - performance.now());
  setTimeout(() => {
    for (let i = 0; i < o.concurrency; i++) send();
  }, startIn);

  return {
    stopSending: () => {
      stopAt = Math.min(stopAt, performance.now());
    },
    cancel: () => {
      cancelled = true;
      stopAt = -Infinity;
    },
    done,
  };
}
