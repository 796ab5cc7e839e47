import type { KneeBracket } from '@kneeboard/contracts';
import { DEFAULT_CONFIDENCE } from '../compare/compare-runs.ts';
import { logRatioInterval } from '../compare/log-interval.ts';
import { runToRunNoise } from '../compare/run-to-run.ts';
import type { ComparableSeries, HistoryRun } from './series.ts';

/** What the history reads of one run's analysis (the caller has it from `analyzeCurve`, `capacityUnderSlos` and `levelFlags`). */
export interface RunFeatures {
  run_id: string;
  peak_qps: number | null;
  knee: { level: number; bracket: KneeBracket | null } | null;
  /** p99 at each measured level, to read it at the series' base knee. */
  p99: ReadonlyArray<{ level: number; p99_ms: number | null }>;
  /** Capacity under the series' SLO, when it has one. */
  capacity_qps: number | null;
  /** Why the run's numbers are not the service's (a generator-limited level, a partial step), or null. */
  excluded: string | null;
}

export const HISTORY_FEATURES = ['peak_qps', 'knee_level', 'p99_at_base_knee_ms', 'capacity_qps'] as const;
export type HistoryFeature = (typeof HISTORY_FEATURES)[number];

export interface FeaturePoint {
  /** Geometric mean over the release's usable runs. */
  value: number;
  /** Run-to-run interval of that mean (null while the series has too few repeats to estimate the spread). */
  low: number | null;
  high: number | null;
  /** Usable runs it rests on. */
  runs: number;
  /** knee_level only: the grid's bracket around the runs' knees, (low, high]; null when the analysis gave none. */
  bracket: KneeBracket | null;
}

export interface ReleasePoint {
  release: string;
  first_run_at: number;
  runs: { run_id: string; excluded: string | null }[];
  features: Record<HistoryFeature, FeaturePoint | null>;
}

export interface SeriesPoints {
  /** The level p99 is read at: the knee of the series' first release that has one (on the grid). */
  base_knee: number | null;
  confidence: number;
  /** Pooled run-to-run spread of each feature (sd of log values) and its degrees of freedom; null with too few repeats. */
  spread: Record<HistoryFeature, { sd: number; df: number } | null>;
  releases: ReleasePoint[];
}

const geomean = (xs: readonly number[]) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);

/** p99 at `level`: as measured there, or interpolated log-log between the measured levels either side; null outside them. */
export function p99At(p99: RunFeatures['p99'], level: number): number | null {
  const pts = p99.filter((p): p is { level: number; p99_ms: number } => p.p99_ms !== null && p.p99_ms > 0 && p.level > 0).sort((a, b) => a.level - b.level);
  const exact = pts.find((p) => p.level === level);
  if (exact) return exact.p99_ms;
  const hi = pts.findIndex((p) => p.level > level);
  if (hi <= 0) return null;
  const a = pts[hi - 1]!;
  const b = pts[hi]!;
  const t = Math.log(level / a.level) / Math.log(b.level / a.level);
  return Math.exp(Math.log(a.p99_ms) + t * Math.log(b.p99_ms / a.p99_ms));
}

function nearestOnGrid(grid: readonly number[] | null, level: number): number {
  if (!grid || grid.length === 0) return level;
  return grid.reduce((best, l) => (Math.abs(Math.log(l / level)) < Math.abs(Math.log(best / level)) ? l : best));
}

function featureValues(f: RunFeatures, feature: HistoryFeature, baseKnee: number | null, withSlo: boolean): number | null {
  const v =
    feature === 'peak_qps' ? f.peak_qps
    : feature === 'knee_level' ? (f.knee?.level ?? null)
    : feature === 'p99_at_base_knee_ms' ? (baseKnee === null ? null : p99At(f.p99, baseKnee))
    : withSlo ? f.capacity_qps
    : null;
  return v !== null && v > 0 && Number.isFinite(v) ? v : null;
}

/**
 * One point per release and feature of a series. Releases are in the order they were first run.
 * Runs that are excluded (generator-limited, partial, aborted) are listed with the reason and
 * counted nowhere. The interval is the run-to-run one: the spread of repeats of one release,
 * pooled over the series (`runToRunNoise`, the comparison's own estimator), on the log scale at
 * Student's t (`logRatioInterval`), so a release measured once still gets the series' spread.
 */
export function releasePoints(series: ComparableSeries, runs: readonly HistoryRun[], features: readonly RunFeatures[], confidence = DEFAULT_CONFIDENCE): SeriesPoints {
  const byId = new Map(runs.map((r) => [r.id, r]));
  const featuresById = new Map(features.map((f) => [f.run_id, f]));
  const partial = new Set(series.partial);
  const releases: { release: string; first_run_at: number; runs: { run_id: string; excluded: string | null }[]; usable: RunFeatures[] }[] = [];
  for (const id of series.runs) {
    const run = byId.get(id);
    if (!run) continue;
    let rel = releases.find((r) => r.release === run.release);
    if (!rel) releases.push((rel = { release: run.release, first_run_at: run.created_at, runs: [], usable: [] }));
    rel.first_run_at = Math.min(rel.first_run_at, run.created_at);
    const f = featuresById.get(id);
    const excluded = partial.has(id) ? 'partial: the run was aborted' : f === undefined ? 'not analysed' : f.excluded;
    rel.runs.push({ run_id: id, excluded });
    if (excluded === null && f) rel.usable.push(f);
  }
  releases.sort((a, b) => a.first_run_at - b.first_run_at);

  const firstKnees = releases.map((r) => r.usable.map((f) => f.knee?.level).filter((l): l is number => l !== undefined && l > 0)).find((ks) => ks.length > 0);
  const baseKnee = firstKnees ? nearestOnGrid(series.grid, geomean(firstKnees)) : null;
  const withSlo = series.slo !== null;

  const spread = {} as SeriesPoints['spread'];
  const values = {} as Record<HistoryFeature, number[][]>;
  for (const feature of HISTORY_FEATURES) {
    values[feature] = releases.map((r) => r.usable.map((f) => featureValues(f, feature, baseKnee, withSlo)).filter((v): v is number => v !== null));
    const repeated = values[feature].filter((vs) => vs.length >= 2);
    // runToRunNoise pools per-level sets of repeats; here each set is one release's values of one feature.
    const noise = runToRunNoise({ runs: repeated.reduce((a, vs) => a + vs.length, 0), releases: repeated.length, qps: repeated, p50_ms: repeated, p99_ms: repeated });
    spread[feature] = noise ? { sd: noise.qps, df: noise.df } : null;
  }

  return {
    base_knee: baseKnee,
    confidence,
    spread,
    releases: releases.map((r, i) => {
      const out = {} as ReleasePoint['features'];
      for (const feature of HISTORY_FEATURES) {
        const vs = values[feature][i]!;
        if (vs.length === 0) {
          out[feature] = null;
          continue;
        }
        const value = geomean(vs);
        const s = spread[feature];
        const ci = s ? logRatioInterval(0, { between: (s.sd * s.sd) / vs.length, betweenDf: s.df, known: 0 }, confidence) : null;
        const brackets = feature === 'knee_level' ? r.usable.map((f) => f.knee?.bracket).filter((b): b is KneeBracket => b != null) : [];
        out[feature] = {
          value,
          low: ci ? value * (1 + ci.low) : null,
          high: ci ? value * (1 + ci.high) : null,
          runs: vs.length,
          bracket: brackets.length ? { low: Math.min(...brackets.map((b) => b.low)), high: Math.max(...brackets.map((b) => b.high)) } : null,
        };
      }
      return { release: r.release, first_run_at: r.first_run_at, runs: r.runs, features: out };
    }),
  };
}
