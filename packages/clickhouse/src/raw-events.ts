/**
 * The raw events table: one row per request, times in integer microseconds (migration 090). Every
 * query and the ingest name it through RAW_EVENTS, so the table is spelled once. Readers keep
 * reading milliseconds: its ALIAS columns (`ts_ms`, `latency_ms`, `compute_ms`, `queue_ms`) are
 * the stored µs / 1000, and filters on `ts_ms` still prune by the sort key (ts_us / 1000 is
 * monotonic; checked with EXPLAIN indexes = 1 in test/request-events.int.test.ts).
 */
export const RAW_EVENTS = 'kb_request_events_v1';

/**
 * Milliseconds → the integer microseconds stored, rounded half up: `floor(ms × 1000 + 0.5)`. The
 * SQL below is the same IEEE arithmetic, so a value folded here (the live figures) and the value
 * the table gives back are the same double.
 */
export const toMicros = (ms: number): number => Math.floor(ms * 1000 + 0.5);

/** A millisecond value as the raw table gives it back (`µs / 1000`); NaN (a missing value) stays NaN. */
export const storedMs = (ms: number): number => toMicros(ms) / 1000;

/** The SQL of toMicros over a Float64 millisecond expression. */
export const microsSql = (ms: string): string => `floor((${ms}) * 1000 + 0.5)`;

/**
 * A step window's bound (a Float64 ms expression) as the table's integer µs, rounded as the events
 * were: compare `r.ts_us` with it. Rounding is monotonic, so an event inside the window as sent is
 * inside it as stored — compared in ms instead, the event at a window's very end (an import's
 * last request) could be rounded up past an unrounded bound and drop out of the curve.
 */
export const boundUsSql = (ms: string): string => `toInt64(${microsSql(ms)})`;

/**
 * The same over a Nullable(Float64) column, as Nullable(UInt64). A null slot of an Arrow column
 * holds NaN in its data buffer, and ClickHouse converts the nested values under the null map too
 * ("inf or nan to integer conversion"), so the value is read as 0 where it is not finite — only
 * ever in a null slot: the batch contract refuses NaN and infinities — and the slot stays NULL.
 */
export const nullableMicrosSql = (column: string): string =>
  `if(isNull(${column}), NULL, toUInt64(${microsSql(`ifNotFinite(assumeNotNull(${column}), 0)`)}))`;
