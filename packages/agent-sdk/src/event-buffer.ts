import type { EventColumns } from '@kneeboard/event-wire';

interface Pending {
  level: number[];
  ts_ms: number[];
  latency_ms: number[];
  /** NaN for "no Server-Timing value", as in EventColumns. */
  compute_ms: number[];
  queue_ms: number[];
  status: number[];
}

const empty = (): Pending => ({ level: [], ts_ms: [], latency_ms: [], compute_ms: [], queue_ms: [], status: [] });

/**
 * Request events as parallel arrays of numbers: appending is six pushes, no object per request. A
 * batch is cut into typed arrays (EventColumns), ready to encode.
 */
export class EventBuffer {
  private cols = empty();

  get length(): number {
    return this.cols.level.length;
  }

  append(level: number, tsMs: number, latencyMs: number, computeMs: number | null, queueMs: number | null, status: number): void {
    const c = this.cols;
    c.level.push(level);
    c.ts_ms.push(tsMs);
    c.latency_ms.push(latencyMs);
    c.compute_ms.push(computeMs ?? Number.NaN);
    c.queue_ms.push(queueMs ?? Number.NaN);
    c.status.push(status);
  }

  /** Removes and returns the oldest `max` events (or all of them). */
  take(max: number): EventColumns {
    let taken: Pending;
    if (this.length <= max) {
      taken = this.cols;
      this.cols = empty();
    } else {
      const c = this.cols;
      taken = {
        level: c.level.splice(0, max),
        ts_ms: c.ts_ms.splice(0, max),
        latency_ms: c.latency_ms.splice(0, max),
        compute_ms: c.compute_ms.splice(0, max),
        queue_ms: c.queue_ms.splice(0, max),
        status: c.status.splice(0, max),
      };
    }
    return {
      length: taken.level.length,
      level: Float64Array.from(taken.level),
      ts_ms: Float64Array.from(taken.ts_ms),
      latency_ms: Float64Array.from(taken.latency_ms),
      compute_ms: Float64Array.from(taken.compute_ms),
      queue_ms: Float64Array.from(taken.queue_ms),
      status: Uint16Array.from(taken.status),
    };
  }
}
