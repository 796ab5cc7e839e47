import type { ChangeVerdict, CurvePoint, LevelComparison, MetricDelta, OverallComparison } from '@kneeboard/contracts';
import { formatLevel, formatPercentChange, formatQps } from './format-change.ts';
import { metricDelta } from './metric-delta.ts';
import { bootstrapMeans, bootstrapQuantiles } from './resample.ts';
import { createSampler, type Sampler } from './sampler.ts';

/** Raw material for intervals at one level: successful requests per whole second, and a sample of latencies. */
export interface LevelSamples {
  level: number;
  per_second_ok: number[];
  latencies: number[];
}

export interface RunSamples {
  label: string;
  curve: CurvePoint[];
  knee: number | null;
  samples: LevelSamples[];
}

export interface CompareOptions {
  minEffect: number;
  seed: number;
  parameter: string;
  confidence?: number;
  resamples?: number;
}

export const DEFAULT_CONFIDENCE = 0.95;
export const DEFAULT_RESAMPLES = 2000;
/** Fewer whole seconds or latency samples than this and an interval means little. */
const MIN_SECONDS = 3;
const MIN_LATENCIES = 20;
const METRICS_PER_LEVEL = 3;

interface Replicates {
  qps: Float64Array | null;
  p50: Float64Array | null;
  p99: Float64Array | null;
}

function replicatesFor(samples: LevelSamples | undefined, resamples: number, sampler: Sampler): Replicates {
  if (!samples) return { qps: null, p50: null, p99: null };
  const qps = samples.per_second_ok.length >= MIN_SECONDS ? bootstrapMeans(samples.per_second_ok, resamples, sampler) : null;
  if (samples.latencies.length < MIN_LATENCIES) return { qps, p50: null, p99: null };
  const sorted = Float64Array.from(samples.latencies).sort();
  return { qps, p50: bootstrapQuantiles(sorted, 0.5, resamples, sampler), p99: bootstrapQuantiles(sorted, 0.99, resamples, sampler) };
}

function peak(curve: CurvePoint[]): CurvePoint | null {
  return curve.reduce<CurvePoint | null>((best, p) => (best === null || p.qps > best.qps ? p : best), null);
}

function overallVerdict(parts: MetricDelta[]): ChangeVerdict {
  if (parts.some((d) => d.verdict === 'regression')) return 'regression';
  if (parts.some((d) => d.verdict === 'improvement')) return 'improvement';
  if (parts[0]?.verdict === 'insufficient data') return 'insufficient data';
  return 'no significant change';
}

/**
 * Compares a head run with a base run level by level, with bootstrap intervals from raw samples,
 * and sums it up: peak throughput, knee shift, and p99 at the base's knee. Levels only one run
 * has are kept with null on the other side (a gap, never a zero).
 */
export function compareRuns(base: RunSamples, head: RunSamples, options: CompareOptions): { levels: LevelComparison[]; overall: OverallComparison } {
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const sampler = createSampler(options.seed);
  const levels = [...new Set([...base.curve, ...head.curve].map((p) => p.level))].sort((a, b) => a - b);

  const reps = (run: RunSamples) => new Map(levels.map((level) => [level, replicatesFor(run.samples.find((s) => s.level === level), resamples, sampler)]));
  const baseReps = reps(base);
  const headReps = reps(head);
  // Each level gets three verdicts (QPS, p50, p99): Bonferroni-adjust so that together they hold
  // at the stated confidence, and two identical releases read "no significant change" that often.
  const common = { minEffect: options.minEffect, confidence: 1 - (1 - confidence) / METRICS_PER_LEVEL };

  const delta = (level: number, metric: 'qps' | 'p50' | 'p99', bp: CurvePoint | undefined, hp: CurvePoint | undefined) => {
    const value = (p: CurvePoint | undefined) => (p === undefined ? null : metric === 'qps' ? p.qps : metric === 'p50' ? p.p50_ms : p.p99_ms);
    return metricDelta({
      base: value(bp),
      head: value(hp),
      baseReplicates: baseReps.get(level)?.[metric] ?? null,
      headReplicates: headReps.get(level)?.[metric] ?? null,
      higherIsBetter: metric === 'qps',
      ...common,
    });
  };

  const rows: LevelComparison[] = levels.map((level) => {
    const bp = base.curve.find((p) => p.level === level);
    const hp = head.curve.find((p) => p.level === level);
    return { level, in_base: bp !== undefined, in_head: hp !== undefined, qps: delta(level, 'qps', bp, hp), p50_ms: delta(level, 'p50', bp, hp), p99_ms: delta(level, 'p99', bp, hp) };
  });

  const basePeak = peak(base.curve);
  const headPeak = peak(head.curve);
  const maxQps = metricDelta({
    base: basePeak?.qps ?? null,
    head: headPeak?.qps ?? null,
    baseReplicates: basePeak ? (baseReps.get(basePeak.level)?.qps ?? null) : null,
    headReplicates: headPeak ? (headReps.get(headPeak.level)?.qps ?? null) : null,
    higherIsBetter: true,
    ...common,
  });
  const kneeLevel = base.knee;
  const p99AtKnee = kneeLevel === null ? null : (rows.find((r) => r.level === kneeLevel)?.p99_ms ?? null);
  const p99_at_base_knee = { ...(p99AtKnee ?? metricDelta({ base: null, head: null, baseReplicates: null, headReplicates: null, higherIsBetter: false, ...common })), level: kneeLevel };
  const knee = { base: base.knee, head: head.knee, change: base.knee !== null && head.knee !== null ? head.knee / base.knee - 1 : null };
  const verdict = overallVerdict([maxQps, p99_at_base_knee]);

  const parts = [`max throughput ${formatPercentChange(maxQps)} (${formatQps(maxQps.base)} → ${formatQps(maxQps.head)} req/s)`];
  if (knee.base !== null && knee.head !== null && knee.base !== knee.head) parts.push(`knee moved from ${formatLevel(knee.base)} to ${formatLevel(knee.head)}`);
  if (p99AtKnee && kneeLevel !== null) parts.push(`p99 at ${options.parameter} ${formatLevel(kneeLevel)} ${formatPercentChange(p99AtKnee)}`);
  const summary = `${head.label} vs ${base.label}: ${parts.join(', ')}. ${verdict === 'no significant change' ? 'No significant change' : verdict[0]?.toUpperCase() + verdict.slice(1)}.`;

  return {
    levels: rows,
    overall: { max_qps: { ...maxQps, base_level: basePeak?.level ?? null, head_level: headPeak?.level ?? null }, knee, p99_at_base_knee, verdict, summary },
  };
}
