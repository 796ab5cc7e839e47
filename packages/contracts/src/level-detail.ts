import { z } from 'zod';
import { EpochMs, Level, MAX_LEVEL, RunId } from './common.ts';

/** ENDPOINTS.runLevel's params: the level as it appears in the curve (a number, e.g. `8` or `0.5`). */
export const LevelParams = z.object({ id: RunId, level: z.coerce.number().positive().max(MAX_LEVEL, `must be at most ${MAX_LEVEL}`) });
export type LevelParams = z.infer<typeof LevelParams>;

/** The percentiles of the spectrum, in percent. 0 is the fastest request; the tail goes to four nines. */
export const SPECTRUM_PERCENTS = [0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99] as const;

const Ms = z.number().nonnegative().nullable();

export const SpectrumPoint = z.object({
  /** Percentile in percent (99.9 = p99.9). */
  p: z.number().min(0).max(100),
  /** Null when the window has no successful request (a gap, never 0). */
  ms: Ms,
});
export type SpectrumPoint = z.infer<typeof SpectrumPoint>;

export const HistogramBucket = z.object({
  lo_ms: z.number().nonnegative(),
  hi_ms: z.number().nonnegative(),
  count: z.number().int().nonnegative(),
});
export type HistogramBucket = z.infer<typeof HistogramBucket>;

/** One slice of the step's time, warm-up included. */
export const TimelineBucket = z.object({
  /** Start of the slice, seconds since the step started (its warm-up begins at 0). */
  t_s: z.number(),
  /** Length of the slice; the first and last may be shorter than `bucket_ms`. */
  duration_ms: z.number().positive(),
  requests: z.number().int().nonnegative(),
  ok: z.number().int().nonnegative(),
  /** Successful requests per second in the slice. */
  qps: z.number().nonnegative(),
  p50_ms: Ms,
  p99_ms: Ms,
  /** True inside the measurement window (from measure_from); false during warm-up. */
  measured: z.boolean(),
});
export type TimelineBucket = z.infer<typeof TimelineBucket>;

export const StatusCount = z.object({
  /** HTTP status; 0 = the request failed before a response (connect error, reset, timeout). */
  status: z.number().int().nonnegative(),
  count: z.number().int().nonnegative(),
  ok: z.boolean(),
});
export type StatusCount = z.infer<typeof StatusCount>;

/**
 * Inside one level of a run. Everything but `timeline` counts the measurement window only (the
 * rows the curve counts); latency statistics are over successful requests. Percentiles are exact
 * (ClickHouse `quantilesExactInclusive`: linear interpolation between order statistics).
 */
export const LevelDetail = z.object({
  run_id: RunId,
  level: Level,
  started_at: EpochMs,
  measure_from: EpochMs,
  ended_at: EpochMs.nullable(),
  in_progress: z.boolean(),
  window_s: z.number().nonnegative(),
  requests: z.number().int().nonnegative(),
  ok: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  qps: z.number().nonnegative(),
  min_ms: Ms,
  mean_ms: Ms,
  max_ms: Ms,
  spectrum: z.array(SpectrumPoint),
  /** Log-spaced buckets from min to max of the successful requests' latency; empty without any. */
  histogram: z.array(HistogramBucket),
  /** Width of a timeline slice, ms (100 ms to 1 s for typical steps; wider for very long ones). */
  bucket_ms: z.number().positive(),
  timeline: z.array(TimelineBucket),
  statuses: z.array(StatusCount),
});
export type LevelDetail = z.infer<typeof LevelDetail>;
