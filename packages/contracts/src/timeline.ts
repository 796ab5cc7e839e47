import { z } from 'zod';
import { EpochMs, Level, RunId } from './common.ts';

/** ENDPOINTS.runTimeline: the whole run against wall-clock time. */
export const TimelineParams = z.object({ id: RunId });
export type TimelineParams = z.infer<typeof TimelineParams>;

/** At most this many points, whatever the run's length: long runs are read in wider buckets. */
export const MAX_TIMELINE_POINTS = 1000;

const Ms = z.number().nonnegative().nullable();

/** One bucket of `bucket_s` whole seconds (the rollup's seconds: a request counts in the second it completed). */
export const RunTimelinePoint = z.object({
  /** Start of the bucket, epoch ms (a whole second). */
  t_ms: EpochMs,
  /** Requests that completed in the bucket, every level and status. */
  requests: z.number().int().nonnegative(),
  /** Successful ones (status 1–399). */
  ok: z.number().int().nonnegative(),
  /** requests − ok. */
  errors: z.number().int().nonnegative(),
  /** requests ÷ bucket_s. */
  rps: z.number().nonnegative(),
  /** Percentiles of the successful requests (DDSketch, within 0.5%); null without one (a gap, never 0). */
  p50_ms: Ms,
  p99_ms: Ms,
});
export type RunTimelinePoint = z.infer<typeof RunTimelinePoint>;

/** A step of the sweep on the wall clock: warm-up from started_at, measured from measure_from. */
export const RunTimelineStep = z.object({
  level: Level,
  started_at: EpochMs,
  measure_from: EpochMs,
  /** Null while the step runs. */
  ended_at: EpochMs.nullable(),
});
export type RunTimelineStep = z.infer<typeof RunTimelineStep>;

export const RunTimeline = z.object({
  run_id: RunId,
  /** Seconds per point: 1, or more when the run is longer than MAX_TIMELINE_POINTS seconds. */
  bucket_s: z.number().int().positive(),
  /** Every bucket from the first second with a request to the last, empty ones included (zeros, null percentiles). */
  points: z.array(RunTimelinePoint).max(MAX_TIMELINE_POINTS),
  steps: z.array(RunTimelineStep),
});
export type RunTimeline = z.infer<typeof RunTimeline>;
