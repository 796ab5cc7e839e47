import { wallClockMs } from '@kneeboard/agent-sdk';

/** Where a step's measurement window lies, in the clock given as `now`: warm-up before `measureFrom`. */
export interface WindowTimes {
  measureFrom: number;
  endsAt: number;
}

/** What happens at the window's moments; every part is optional, and only the parts given arm a timer. */
export interface WindowHandlers {
  /** Warm-up is over: measuring starts. Never called once the window has closed. */
  onOpen?: () => void;
  /** The window closes — at its planned end, on stop() or on close(), whichever comes first — once. */
  onClose?: () => void;
  /** `afterEndMs` past the planned end: give up waiting for the requests still out. */
  deadline?: { afterEndMs: number; onDeadline: () => void };
  /** Every `everyMs` until disposed (the progress line). */
  tick?: { everyMs: number; onTick: () => void };
  /** Ends the step early, once: called by stop() (or the signal's abort) with the time, after onClose. */
  onStop?: (stoppedAt: number) => void;
  /** After a stop, requests in flight get `ms`, then `onGraceOver` cuts them off. */
  grace?: { ms: number; onGraceOver: () => void };
  /** Aborting it stops the window; already aborted stops it at once. */
  signal?: AbortSignal;
  /** The clock `times` are in (default: wallClockMs, epoch ms on the wall clock). */
  now?: () => number;
}

/**
 * The timers of one step in one place: warm-up end, window end, the deadline for stragglers, the
 * progress tick, the stop (Ctrl-C) and its grace period. Each fires at most once (the tick
 * excepted), and dispose() clears whatever is still armed, so a step that ends — normally, stopped
 * or by an error — leaves no timer or abort listener behind.
 */
export class MeasurementWindow {
  /** When stop() was called (in the clock of `now`), or undefined while the step runs its plan. */
  stoppedAt: number | undefined;
  private readonly now: () => number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private ticker: NodeJS.Timeout | undefined;
  private openTimer: NodeJS.Timeout | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private disposed = false;
  private readonly onAbort = () => this.stop();

  constructor(
    times: WindowTimes,
    private readonly on: WindowHandlers,
  ) {
    this.now = on.now ?? wallClockMs;
    const from = this.now();
    // Armed in this order so that, due together, the window opens before it closes and closes before the deadline.
    if (on.onOpen) this.openTimer = this.after(times.measureFrom - from, () => on.onOpen!());
    if (on.onClose) this.closeTimer = this.after(times.endsAt - from, () => this.close());
    if (on.deadline) this.after(times.endsAt + on.deadline.afterEndMs - from, on.deadline.onDeadline);
    if (on.tick) this.ticker = setInterval(on.tick.onTick, on.tick.everyMs);
    if (on.signal?.aborted) this.stop();
    else on.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Closes the window now if it is still open or not yet opened (warm-up then never ends in a window). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clear(this.openTimer);
    this.clear(this.closeTimer);
    this.on.onClose?.();
  }

  /** Ends the step early: closes the window, calls onStop, and starts the grace period. Once. */
  stop(): void {
    if (this.stoppedAt !== undefined) return;
    this.stoppedAt = this.now();
    this.close();
    this.on.onStop?.(this.stoppedAt);
    const grace = this.on.grace;
    if (grace) this.after(grace.ms, grace.onGraceOver);
  }

  /** Clears every timer still armed and the abort listener; close() and stop() still work afterwards but arm nothing. */
  dispose(): void {
    this.disposed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    clearInterval(this.ticker);
    this.ticker = undefined;
    this.on.signal?.removeEventListener('abort', this.onAbort);
  }

  /** Timers still armed (the tick included): 0 after dispose(). */
  get pending(): number {
    return this.timers.size + (this.ticker === undefined ? 0 : 1);
  }

  private after(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    if (this.disposed) return undefined;
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, Math.max(0, ms));
    this.timers.add(t);
    return t;
  }

  private clear(t: NodeJS.Timeout | undefined): void {
    if (t === undefined) return;
    clearTimeout(t);
    this.timers.delete(t);
  }
}
