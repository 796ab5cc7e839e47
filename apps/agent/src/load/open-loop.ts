import { performance } from 'node:perf_hooks';
import { nextGapMs, type Arrivals } from './arrivals.ts';
import type { LoopHandle, LoopOptions } from './loop.ts';
import { fire } from './target-client.ts';

export interface OpenLoopOptions extends LoopOptions {
  /** Offered rate, requests per second. */
  rate: number;
  arrivals: Arrivals;
  /** Requests outstanding at most; a send due beyond it waits for a free connection (late) or, at the end, is missed. */
  maxConnections: number;
  /** Sends intended in [windowFrom, windowTo) are the ones counted (the measurement window). */
  windowFrom: number;
  windowTo: number;
  /** A send leaving later than this after its intended time counts as late. */
  lateToleranceMs: number;
  random?: () => number;
}

export interface OpenLoopCounts {
  /** Sends due in the window. */
  intended: number;
  /** Of those, handed to a connection. */
  sent: number;
  /** Of those, sent more than the tolerance after their intended time. */
  late: number;
  /** Due in the window but never sent: still waiting for a connection when sending stopped. */
  missed: number;
}

/** Intended sends waiting for a connection, at most; past it they are counted missed at once. */
const MAX_BACKLOG = 1_000_000;

/**
 * Open loop: requests are due at a fixed rate whatever the target does, and each one's latency is
 * measured from the time it was *due* — so a stalled server shows its queue (no coordinated
 * omission), as in wrk2 and `oha --latency-correction`. Connections open as needed up to
 * maxConnections; a due request that finds them all busy waits in the agent's backlog and leaves
 * late, and one still waiting when sending stops is counted as missed. Nothing is dropped silently.
 */
export function startOpenLoop(o: OpenLoopOptions): LoopHandle<OpenLoopCounts> {
  const random = o.random ?? Math.random;
  const counts: OpenLoopCounts = { intended: 0, sent: 0, late: 0, missed: 0 };
  const inWindow = (t: number) => t >= o.windowFrom && t < o.windowTo;
  const backlog: number[] = [];
  let head = 0;
  let outstanding = 0;
  let next = o.startAt;
  let sending = true;
  let cancelled = false;
  let timer: NodeJS.Timeout | undefined;
  let resolveDone!: (c: OpenLoopCounts) => void;
  const done = new Promise<OpenLoopCounts>((resolve) => (resolveDone = resolve));

  const maybeDone = () => {
    if (!sending && (outstanding === 0 || cancelled) && head === backlog.length) resolveDone(counts);
  };

  const dispatch = (intendedAt: number, now: number) => {
    outstanding += 1;
    if (inWindow(intendedAt)) {
      counts.sent += 1;
      if (now - intendedAt > o.lateToleranceMs) counts.late += 1;
    }
    let onWire = false;
    // The arrival's request: drawn when it leaves, which for independent picks is the same draw.
    const index = o.mix ? o.mix.pick() : 0;
    fire(o.dispatcher, o.mix ? o.mix.requests[index]! : o.request, o.parseTiming, {
      onSent: (at) => {
        onWire = true;
        o.gauge.up(at);
      },
      onDone: (c) => {
        outstanding -= 1;
        if (onWire) o.gauge.down(c.endedAt);
        if (!cancelled) o.onResult(intendedAt, c, index);
        // A connection is free: the oldest waiting send goes now (late, and timed from when it was due).
        if (head < backlog.length) setImmediate(pump);
        maybeDone();
      },
    });
  };

  const pump = () => {
    const now = performance.now();
    while (head < backlog.length && outstanding < o.maxConnections && !cancelled) dispatch(backlog[head++]!, now);
    if (head === backlog.length && head > 0) {
      backlog.length = 0;
      head = 0;
    }
    maybeDone();
  };

  const tick = () => {
    timer = undefined;
    const now = performance.now();
    const until = Math.min(now, o.stopSendingAt);
    while (sending && next <= until && next < o.stopSendingAt) {
      if (inWindow(next)) counts.intended += 1;
      if (head === backlog.length && outstanding < o.maxConnections) dispatch(next, now);
      else if (backlog.length - head < MAX_BACKLOG) backlog.push(next);
      else if (inWindow(next)) counts.missed += 1;
      next += nextGapMs(o.rate, o.arrivals, random);
    }
    if (sending && next < o.stopSendingAt) timer = setTimeout(tick, Math.max(0, next - performance.now()));
    else {
      sending = false;
      maybeDone();
    }
  };
  timer = setTimeout(tick, Math.max(0, o.startAt - performance.now()));

  /** Sends still waiting when sending stops were never made: counted, never silently dropped. */
  const abandonBacklog = () => {
    for (let i = head; i < backlog.length; i++) if (inWindow(backlog[i]!)) counts.missed += 1;
    backlog.length = 0;
    head = 0;
  };

  return {
    stopSending: () => {
      sending = false;
      clearTimeout(timer);
      abandonBacklog();
      maybeDone();
    },
    cancel: () => {
      cancelled = true;
      sending = false;
      clearTimeout(timer);
      abandonBacklog();
      maybeDone();
    },
    done,
  };
}
