import type { EventColumnName } from '@kneeboard/contracts';

/**
 * One batch's events as typed arrays: no object per event. In `compute_ms` and `queue_ms` a NaN
 * stands for null — a NaN can never be a valid value, so it cannot be mistaken for one.
 */
export interface EventColumns {
  readonly length: number;
  readonly level: Float64Array;
  readonly ts_ms: Float64Array;
  readonly latency_ms: Float64Array;
  readonly compute_ms: Float64Array;
  readonly queue_ms: Float64Array;
  readonly status: Uint16Array;
}

/** A batch as the API stores it: who sent it, under which id, and its columns. */
export interface DecodedBatch {
  batch_id: string;
  agent_id: string;
  columns: EventColumns;
}

export type ColumnArray<K extends EventColumnName> = EventColumns[K];

export function allocateColumns(n: number): EventColumns {
  return {
    length: n,
    level: new Float64Array(n),
    ts_ms: new Float64Array(n),
    latency_ms: new Float64Array(n),
    compute_ms: new Float64Array(n),
    queue_ms: new Float64Array(n),
    status: new Uint16Array(n),
  };
}

/** The JSON body's shape (nulls as null), e.g. for a test double that stores what it received. */
export function columnsToArrays(c: EventColumns) {
  const nullable = (a: Float64Array) => Array.from(a, (v) => (Number.isNaN(v) ? null : v));
  return {
    level: Array.from(c.level),
    ts_ms: Array.from(c.ts_ms),
    latency_ms: Array.from(c.latency_ms),
    compute_ms: nullable(c.compute_ms),
    queue_ms: nullable(c.queue_ms),
    status: Array.from(c.status),
  };
}
