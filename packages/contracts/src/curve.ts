import { z } from 'zod';
import { Level } from './common.ts';
import { StepHealth } from './step.ts';

const Ms = z.number().nullable();

/**
 * One load level of a run's curve, computed from raw request rows inside the step's measurement
 * window. Latency percentiles are over successful requests (status 1–399), so fast failures cannot
 * flatter them; errors are counted separately. A percentile with no samples is null, never 0.
 */
export const CurvePoint = z.object({
  level: Level,
  requests: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  /** Successful requests in the window ÷ the window's length in seconds. */
  qps: z.number().nonnegative(),
  /** Length of the measurement window so far, seconds. */
  window_s: z.number().nonnegative(),
  /** Mean latency of successful requests: with QPS it gives the in-flight count by Little's law. */
  mean_ms: Ms.optional(),
  p50_ms: Ms,
  p90_ms: Ms,
  p99_ms: Ms,
  p999_ms: Ms,
  compute_p50_ms: Ms,
  compute_p99_ms: Ms,
  queue_p50_ms: Ms,
  queue_p99_ms: Ms,
  /** latency − compute − queue: the interface and network share. */
  other_p50_ms: Ms,
  /** True while the step's window is still open. */
  in_progress: z.boolean(),
  /** The agent's own health during the step, when it reported it. Always sent by the API (null when none). */
  health: StepHealth.nullable().optional(),
});
export type CurvePoint = z.infer<typeof CurvePoint>;

export const Curve = z.array(CurvePoint);

/**
 * Where a curve's percentiles come from: `rollup` — merged per-second DDSketch states, within 0.5%
 * of the value at each rank, fast at any run size; `exact` — every raw row (`?exact=1`). Counts,
 * QPS and means are exact either way.
 */
export const PercentileSource = z.enum(['rollup', 'exact']);
export type PercentileSource = z.infer<typeof PercentileSource>;

/**
 * `?exact=1` (or `true`) asks for percentiles from every raw row, `?exact=0` (or `false`) for the
 * rollup; without it the API picks: exact for runs small enough that it costs no more.
 */
export const PercentilesQuery = z.object({ exact: z.enum(['0', '1', 'false', 'true']).optional() });
export type PercentilesQuery = z.infer<typeof PercentilesQuery>;

export type PercentilesWanted = PercentileSource | 'auto';

export function percentilesWanted(query: PercentilesQuery): PercentilesWanted {
  if (query.exact === undefined) return 'auto';
  return query.exact === '1' || query.exact === 'true' ? 'exact' : 'rollup';
}
