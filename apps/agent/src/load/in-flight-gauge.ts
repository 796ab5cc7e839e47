import { performance } from 'node:perf_hooks';

export interface GaugeMark {
  at: number;
  area: number;
}

/**
 * Requests on the wire, counted directly and integrated over time, so the mean over any window is
 * exact (request-milliseconds ÷ milliseconds) rather than sampled. A request counts from the moment
 * it is written to a connection to the moment its response ends: one waiting inside the agent for
 * a connection does not count, which is what exposes a connection cap (seed 004's bug).
 */
export class InFlightGauge {
  private n = 0;
  private area = 0;
  private last = performance.now();

  get current(): number {
    return this.n;
  }

  up(now: number): void {
    this.advance(now);
    this.n += 1;
  }

  down(now: number): void {
    this.advance(now);
    this.n -= 1;
  }

  mark(now = performance.now()): GaugeMark {
    this.advance(now);
    return { at: now, area: this.area };
  }

  static mean(from: GaugeMark, to: GaugeMark): number | null {
    const ms = to.at - from.at;
    return ms > 0 ? (to.area - from.area) / ms : null;
  }

  private advance(now: number): void {
    // Completion callbacks may carry a timestamp slightly older than the last one seen.
    if (now <= this.last) return;
    this.area += this.n * (now - this.last);
    this.last = now;
  }
}
