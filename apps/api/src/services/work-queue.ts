/** The queue is full: the caller answers 429 rather than pile up work it cannot finish soon. */
export class QueueFull extends Error {
  constructor(
    readonly running: number,
    readonly waiting: number,
  ) {
    super(`${running} running, ${waiting} waiting`);
  }
}

/**
 * At most `concurrency` jobs at once and at most `queue` waiting, first come first served.
 * Expensive work goes through one of these so a burst of it cannot take every core and starve
 * cheap requests; a burst beyond the queue is refused at once instead of waiting minutes.
 */
export class WorkQueue {
  #running = 0;
  readonly #waiting: Array<() => void> = [];
  /** The most jobs ever seen running at once (for tests and the readiness report). */
  peak = 0;

  constructor(
    readonly concurrency: number,
    readonly queue: number,
  ) {}

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.#running >= this.concurrency) {
      if (this.#waiting.length >= this.queue) throw new QueueFull(this.#running, this.#waiting.length);
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    this.peak = Math.max(this.peak, this.#running);
    try {
      return await job();
    } finally {
      // Hand the slot straight to the next waiter, so `running` never dips and lets a newcomer jump the queue.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
