import { MAX_DURATION_MS, MAX_LEVEL, type EventColumnName } from '@kneeboard/contracts';

/** What one column's entries must satisfy. Events are checked against these in one pass per column. */
export interface ColumnRule {
  nullable: boolean;
  integer: boolean;
  /** Inclusive lower bound, unless `minExclusive`. */
  min: number;
  minExclusive: boolean;
  max: number;
  /** Says what the bounds mean, e.g. "must be at most 86400000 ms (a day)". */
  describe(value: number): string;
}

const rule = (r: Omit<ColumnRule, 'describe'>, tooLarge: string, tooSmall: string): ColumnRule => ({
  ...r,
  describe: (v) => (v > r.max ? tooLarge : tooSmall),
});

const duration = (nullable: boolean) =>
  rule({ nullable, integer: false, min: 0, minExclusive: false, max: MAX_DURATION_MS }, `must be at most ${MAX_DURATION_MS} ms (a day)`, 'must not be negative');

/**
 * The per-column rules of the event contract (`EventBatch` in @kneeboard/contracts says the same in
 * zod, for documentation). `ts_ms` bounds come from the run (see EventBounds).
 */
export const COLUMN_RULES: Record<Exclude<EventColumnName, 'ts_ms'>, ColumnRule> = {
  level: rule({ nullable: false, integer: false, min: 0, minExclusive: true, max: MAX_LEVEL }, `must be at most ${MAX_LEVEL}`, 'must be positive'),
  latency_ms: duration(false),
  compute_ms: duration(true),
  queue_ms: duration(true),
  status: rule({ nullable: false, integer: true, min: 0, minExclusive: false, max: 999 }, 'must be at most 999', 'must not be negative'),
};

/** What a batch is checked against from its run: the time span its `ts_ms` must fall in (the run's, with slack), and its steps' levels. */
export interface EventBounds {
  tsMin: number;
  tsMax: number;
  /**
   * The levels the run has a step window for. When given (the run has steps), every event's level
   * must be one of them: an event at a level with no step is counted in no step, so in nothing.
   */
  levels?: ReadonlySet<number>;
}

/**
 * `compute_ms` and `queue_ms` are parts of the request's time, reported by the server
 * (Server-Timing) on its own clock, while `latency_ms` is the agent's: each may exceed the latency
 * by clock granularity, by at most this much — 1 ms, or 1% of the latency when that is more.
 * Beyond it the value cannot be a part of that request. Their sum is not bounded: Server-Timing
 * does not say that two metrics do not overlap (a server may count its queue inside its compute).
 */
export const SERVER_TIME_TOLERANCE_MS = 1;
export const SERVER_TIME_TOLERANCE_RATIO = 0.01;

/** The largest compute_ms or queue_ms a request of `latencyMs` may report. */
export function serverTimeLimit(latencyMs: number): number {
  return latencyMs + Math.max(SERVER_TIME_TOLERANCE_MS, latencyMs * SERVER_TIME_TOLERANCE_RATIO);
}

export function tsRule(bounds: EventBounds): ColumnRule {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    nullable: false,
    integer: false,
    min: bounds.tsMin,
    minExclusive: false,
    max: bounds.tsMax,
    describe: (v) =>
      `must be an epoch time in ms within the run's time span ${iso(bounds.tsMin)} … ${iso(bounds.tsMax)} (got ${Number.isFinite(v) && Math.abs(v) < 8.64e15 ? iso(v) : v})`,
  };
}

/** Bounds for when the run is not known yet: any plausible epoch time (2000–2100). */
export const ANY_TIME: EventBounds = { tsMin: 946_684_800_000, tsMax: 4_102_444_800_000 };
