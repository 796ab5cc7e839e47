import { z } from 'zod';
import { KneeBracket } from './analysis.ts';
import { EpochMs, Level } from './common.ts';
import { LoadModel } from './run.ts';

/** The features a release gets one point of (analysis' `HISTORY_FEATURES`). */
export const HistoryFeature = z.enum(['peak_qps', 'knee_level', 'p99_at_base_knee_ms', 'capacity_qps']);
export type HistoryFeature = z.infer<typeof HistoryFeature>;

/** Runs that can be compared: same load model, parameter, grid (or search), target, request and SLO; or one `series=NAME` label. */
export const ComparableSeries = z.object({
  key: z.string(),
  name: z.string(),
  load_model: LoadModel,
  parameter: z.string(),
  grid: z.array(Level).nullable(),
  search: z.boolean(),
  target: z.string().nullable(),
  request: z.string().nullable(),
  slo: z.string().nullable(),
  forced_by: z.string().nullable(),
  runs: z.array(z.string()),
  partial: z.array(z.string()),
});

/** One release's value of a feature: geometric mean of its usable runs, with the run-to-run interval (null without repeats to estimate it). */
export const FeaturePoint = z.object({
  value: z.number().positive(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  runs: z.number().int().positive(),
  bracket: KneeBracket.nullable(),
});

export const ReleasePoint = z.object({
  release: z.string(),
  first_run_at: EpochMs,
  /** Every run of the release in the series; `excluded` says why one is not in the statistics. */
  runs: z.array(z.object({ run_id: z.string(), excluded: z.string().nullable() })),
  features: z.record(HistoryFeature, FeaturePoint.nullable()),
});

/** A change point of one feature (E-divisive means): the first release after it, its size after ÷ before and a bootstrap interval. */
export const FeatureChangePoint = z.object({
  feature: HistoryFeature,
  release_index: z.number().int().nonnegative(),
  release: z.string(),
  previous_release: z.string(),
  ratio: z.number().positive(),
  log_ratio: z.number(),
  ratio_low: z.number().positive(),
  ratio_high: z.number().positive(),
  p_value: z.number().gt(0).max(1),
});

export const SeriesHistory = z.object({
  series: ComparableSeries,
  points: z.object({
    base_knee: Level.nullable(),
    confidence: z.number().gt(0).lt(1),
    spread: z.record(HistoryFeature, z.object({ sd: z.number().nonnegative(), df: z.number().int().positive() }).nullable()),
    releases: z.array(ReleasePoint),
  }),
  change_points: z.array(FeatureChangePoint),
  /** Releases with a value a feature needs before a change point can be found in it (two segments of the detector's minimum size): below it, none is looked for. */
  change_point_min_releases: z.number().int().positive(),
});
export type SeriesHistory = z.infer<typeof SeriesHistory>;

export const ServiceHistoryResponse = z.object({
  service: z.string(),
  /** How many of the service's runs were read (the newest, up to the route's limit). */
  runs_read: z.number().int().nonnegative(),
  series: z.array(SeriesHistory),
});
export type ServiceHistoryResponse = z.infer<typeof ServiceHistoryResponse>;
