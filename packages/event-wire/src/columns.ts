import type { EventColumnName } from '@kneeboard/contracts';

/** A request name's place in `EventNames.values`, one per event: any unsigned width an engine has at hand. */
export type NameIndex = Uint8Array | Uint16Array | Uint32Array;

/**
 * The requests' names, dictionary-coded (a mix has a few names and many requests): request i is
 * named `values[index[i]]`, '' meaning no name. `values` need not be distinct (two blocks joined
 * keep both lists); the decoders give distinct ones.
 */
export interface EventNames {
  readonly values: readonly string[];
  readonly index: NameIndex;
}

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
  /** Absent when no request of the batch has a name (a run without names is stored as before names existed). */
  readonly name?: EventNames;
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

/** Request i's name, '' when it has none. */
export function nameAt(c: EventColumns, i: number): string {
  return c.name ? (c.name.values[c.name.index[i]!] ?? '') : '';
}

/** Every request's name in order ('' for none), or undefined when the batch has no name column. */
export function namesOf(c: EventColumns): string[] | undefined {
  const names = c.name;
  if (!names) return undefined;
  return Array.from(names.index, (k) => names.values[k] ?? '');
}

/** The JSON body's shape (nulls as null), e.g. for a test double that stores what it received. */
export function columnsToArrays(c: EventColumns) {
  const nullable = (a: Float64Array) => Array.from(a, (v) => (Number.isNaN(v) ? null : v));
  const name = namesOf(c);
  return {
    level: Array.from(c.level),
    ts_ms: Array.from(c.ts_ms),
    latency_ms: Array.from(c.latency_ms),
    compute_ms: nullable(c.compute_ms),
    queue_ms: nullable(c.queue_ms),
    status: Array.from(c.status),
    ...(name ? { name } : {}),
  };
}
