/** Columns of one batch, in the EventBatch layout. */
export interface EventColumns {
  level: number[];
  ts_ms: number[];
  latency_ms: number[];
  compute_ms: Array<number | null>;
  queue_ms: Array<number | null>;
  status: number[];
}

const emptyColumns = (): EventColumns => ({ level: [], ts_ms: [], latency_ms: [], compute_ms: [], queue_ms: [], status: [] });

/**
 * Request events as parallel arrays: appending is six pushes, no object per request, and a batch
 * is cut without copying when it takes everything.
 */
export class EventBuffer {
  private cols = emptyColumns();

  get length(): number {
    return this.cols.level.length;
  }

  append(level: number, tsMs: number, latencyMs: number, computeMs: number | null, queueMs: number | null, status: number): void {
    const c = this.cols;
    c.level.push(level);
    c.ts_ms.push(tsMs);
    c.latency_ms.push(latencyMs);
    c.compute_ms.push(computeMs);
    c.queue_ms.push(queueMs);
    c.status.push(status);
  }

  /** Removes and returns the oldest `max` events (or all of them). */
  take(max: number): EventColumns {
    if (this.length <= max) {
      const all = this.cols;
      this.cols = emptyColumns();
      return all;
    }
    const c = this.cols;
    return {
      level: c.level.splice(0, max),
      ts_ms: c.ts_ms.splice(0, max),
      latency_ms: c.latency_ms.splice(0, max),
      compute_ms: c.compute_ms.splice(0, max),
      queue_ms: c.queue_ms.splice(0, max),
      status: c.status.splice(0, max),
    };
  }
}
