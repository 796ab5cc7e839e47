import { z } from 'zod';
import { Level, RunId } from './common.ts';
import { Run } from './run.ts';

export const MAX_COMPARED_HEADS = 7;

/**
 * `no significant change` unless the 95% interval of the relative change excludes 0 *and* the
 * change is at least `min_effect` (default 5%): a run-to-run wobble on a noisy machine is not news.
 */
export const ChangeVerdict = z.enum(['regression', 'improvement', 'no significant change', 'insufficient data']);
export type ChangeVerdict = z.infer<typeof ChangeVerdict>;

export const CompareMetric = z.enum(['qps', 'p50_ms', 'p99_ms']);
export type CompareMetric = z.infer<typeof CompareMetric>;

export const MetricDelta = z.object({
  base: z.number().nullable(),
  head: z.number().nullable(),
  /** head ÷ base − 1. */
  change: z.number().nullable(),
  /**
   * Bootstrap interval of the relative change, at 1 − (1 − confidence)/3 (98.3% for 95%) so that a
   * level's three verdicts hold together at the stated confidence.
   */
  ci_low: z.number().nullable(),
  ci_high: z.number().nullable(),
  verdict: ChangeVerdict,
});
export type MetricDelta = z.infer<typeof MetricDelta>;

export const LevelComparison = z.object({
  level: Level,
  in_base: z.boolean(),
  in_head: z.boolean(),
  qps: MetricDelta,
  p50_ms: MetricDelta,
  p99_ms: MetricDelta,
});
export type LevelComparison = z.infer<typeof LevelComparison>;

export const OverallComparison = z.object({
  /** Peak QPS of each run (at its own best level). */
  max_qps: MetricDelta.extend({ base_level: Level.nullable(), head_level: Level.nullable() }),
  knee: z.object({ base: Level.nullable(), head: Level.nullable(), change: z.number().nullable() }),
  /** p99 at the level where the base run's knee is: what users at the old capacity now see. */
  p99_at_base_knee: MetricDelta.extend({ level: Level.nullable() }),
  verdict: ChangeVerdict,
  /** One sentence for a pull request or a review. */
  summary: z.string(),
});
export type OverallComparison = z.infer<typeof OverallComparison>;

export const HeadComparison = z.object({
  run: Run,
  levels: z.array(LevelComparison),
  overall: OverallComparison,
});
export type HeadComparison = z.infer<typeof HeadComparison>;

export const CompareSettings = z.object({
  confidence: z.number(),
  min_effect: z.number(),
  resamples: z.number().int(),
});

export const CompareResponse = z.object({
  base: Run,
  heads: z.array(HeadComparison),
  settings: CompareSettings,
});
export type CompareResponse = z.infer<typeof CompareResponse>;

export const CompareQuery = z.object({
  base: RunId,
  head: z
    .union([RunId, z.array(RunId)])
    .transform((h) => (Array.isArray(h) ? h : [h]))
    .pipe(z.array(RunId).min(1).max(MAX_COMPARED_HEADS, `compare at most ${MAX_COMPARED_HEADS} heads with one base`)),
  /** Smallest relative change worth calling, 0–1 (0.05 = 5%). */
  min_effect: z.coerce.number().min(0).max(1).default(0.05),
});
export type CompareQuery = z.infer<typeof CompareQuery>;
