import type { ChangeVerdict, CurvePoint, KneeBracket, LevelComparison, LevelFlag, MetricDelta, NoiseBasis, OverallComparison } from '@kneeboard/contracts';
import { kneesWithinGrid } from '../knee-bracket.ts';
import { formatChangeWithInterval, formatLevel, formatQps } from '@kneeboard/contracts/figures';
import { groupReplicates } from './group-replicates.ts';
import { metricDelta } from './metric-delta.ts';
import { bootstrapMeans, bootstrapQuantiles } from './resample.ts';
import type { RunToRunNoise } from './run-to-run.ts';
import { createSampler, type Sampler } from './sampler.ts';
import { smallSampleWidening, widenAroundMean } from './small-sample.ts';

/** Raw material for intervals at one level: successful requests per time bucket (as a rate), and a sample of latencies. */
export interface LevelSamples {
  level: number;
  /** Successful requests per second in each bucket of the measurement window, empty buckets included. */
  per_second_ok: number[];
  latencies: number[];
}

/** One run: its curve, knee, raw samples, and the levels whose numbers are the agent's, not the service's. */
export interface RunSamples {
  label: string;
  run_id: string;
  curve: CurvePoint[];
  knee: number | null;
  knee_bracket?: KneeBracket | null;
  samples: LevelSamples[];
  /** Level → why it is not the service's (generator-limited, partial). */
  flags?: ReadonlyMap<number, string>;
}

/** Repeats of one release, compared as one: their mean, with intervals that see the spread between them. */
export interface RunGroup {
  label: string;
  runs: RunSamples[];
}

export interface CompareOptions {
  minEffect: number;
  seed: number;
  parameter: string;
  confidence?: number;
  resamples?: number;
  /** Run-to-run spread measured in earlier repeats of the service, applied where a side has one run. */
  runToRun?: RunToRunNoise | null;
}

export const DEFAULT_CONFIDENCE = 0.95;
export const DEFAULT_RESAMPLES = 2000;
/** Fewer buckets or latency samples than this and an interval means little. */
const MIN_BUCKETS = 3;
const MIN_LATENCIES = 20;
const METRICS_PER_LEVEL = 3;

type Metric = 'qps' | 'p50_ms' | 'p99_ms';
type Replicates = Record<Metric, Float64Array | null>;

function withinRun(samples: LevelSamples | undefined, resamples: number, sampler: Sampler): Replicates {
  if (!samples) return { qps: null, p50_ms: null, p99_ms: null };
  const qps = samples.per_second_ok.length >= MIN_BUCKETS ? bootstrapMeans(samples.per_second_ok, resamples, sampler) : null;
  if (samples.latencies.length < MIN_LATENCIES) return { qps, p50_ms: null, p99_ms: null };
  const sorted = Float64Array.from(samples.latencies).sort();
  return { qps, p50_ms: bootstrapQuantiles(sorted, 0.5, resamples, sampler), p99_ms: bootstrapQuantiles(sorted, 0.99, resamples, sampler) };
}

const valueOf = (p: CurvePoint, metric: Metric) => (metric === 'qps' ? p.qps : metric === 'p50_ms' ? p.p50_ms : p.p99_ms);

/** The group's value at a level: the mean over its runs that measured it. */
function groupValue(group: RunGroup, level: number, metric: Metric): number | null {
  const values = group.runs.map((r) => r.curve.find((p) => p.level === level)).flatMap((p) => (p ? [valueOf(p, metric)] : [])).filter((v): v is number => v !== null);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

function groupFlags(group: RunGroup, side: 'base' | 'head', level: number): LevelFlag[] {
  return group.runs.flatMap((r) => {
    const reason = r.flags?.get(level);
    return reason ? [{ side, run_id: r.run_id, reason }] : [];
  });
}

/** The level where a group's throughput peaks (mean over its runs). */
function peakLevel(group: RunGroup, levels: number[]): number | null {
  let best: { level: number; qps: number } | null = null;
  for (const level of levels) {
    const qps = groupValue(group, level, 'qps');
    if (qps !== null && (best === null || qps > best.qps)) best = { level, qps };
  }
  return best?.level ?? null;
}

/** The group's knee: the median of its runs' knees (the lower one of a middle pair), with that run's bracket. */
function groupKnee(group: RunGroup): { level: number; bracket: KneeBracket | null } | null {
  const knees = group.runs.filter((r) => r.knee !== null).sort((a, b) => (a.knee as number) - (b.knee as number));
  const mid = knees[Math.floor((knees.length - 1) / 2)];
  return mid ? { level: mid.knee as number, bracket: mid.knee_bracket ?? null } : null;
}

const notComparable = (d: MetricDelta, flags: LevelFlag[]): MetricDelta => (flags.length > 0 && d.change !== null ? { ...d, verdict: 'not comparable' } : d);

function overallVerdict(parts: MetricDelta[]): ChangeVerdict {
  if (parts.some((d) => d.verdict === 'regression')) return 'regression';
  if (parts.some((d) => d.verdict === 'improvement')) return 'improvement';
  if (parts.some((d) => d.verdict === 'no significant change')) return 'no significant change';
  return parts.some((d) => d.verdict === 'not comparable') ? 'not comparable' : 'insufficient data';
}

/**
 * The runs behind the run-to-run spread: repeats beyond the first on each side, plus the history's
 * when a side of one run borrows it. Zero when no spread between runs is estimated at all.
 */
function degreesOfFreedom(base: RunGroup, head: RunGroup, runToRun: RunToRunNoise | null): number {
  const own = Math.max(0, base.runs.length - 1) + Math.max(0, head.runs.length - 1);
  const single = Math.min(base.runs.length, head.runs.length) === 1;
  if (single && runToRun) return own + runToRun.df;
  return single ? 0 : own;
}

function noiseBasis(base: RunGroup, head: RunGroup, runToRun: RunToRunNoise | null): NoiseBasis {
  const counts = { base_runs: base.runs.length, head_runs: head.runs.length };
  const single = Math.min(counts.base_runs, counts.head_runs) === 1;
  if (!single) {
    return { ...counts, basis: 'repeats', run_to_run: null, note: `Intervals resample the ${counts.base_runs} base and ${counts.head_runs} head runs, then requests within them: run-to-run noise is inside them.` };
  }
  if (runToRun) {
    const pct = (x: number) => `±${(x * 100).toFixed(1)}%`;
    return {
      ...counts,
      basis: 'history',
      run_to_run: runToRun,
      note: `A side has one run: its intervals add the run-to-run spread measured in earlier repeats of this service (QPS ${pct(runToRun.qps)}, p50 ${pct(runToRun.p50_ms)}, p99 ${pct(runToRun.p99_ms)}).`,
    };
  }
  return {
    ...counts,
    basis: 'within-run only',
    run_to_run: null,
    note: 'A side has one run and no earlier repeats of this service measured the run-to-run noise: the intervals see only the noise within each run and cannot separate a change from a busier machine. Repeat the sweep (kneeboard sweep --repeat 3) to measure it.',
  };
}

/**
 * Compares a head group of runs with a base group level by level, with bootstrap intervals that
 * resample runs and then requests within them, and sums it up: peak throughput, knee shift, and p99
 * at the base's knee. Levels only one side has are kept with null on the other (a gap, never a
 * zero). A level where either side's agent was the limit gets `not comparable`, never a verdict.
 */
export function compareGroups(base: RunGroup, head: RunGroup, options: CompareOptions): { levels: LevelComparison[]; overall: OverallComparison; noise: NoiseBasis } {
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const sampler = createSampler(options.seed);
  const runToRun = options.runToRun ?? null;
  const levels = [...new Set([...base.runs, ...head.runs].flatMap((r) => r.curve.map((p) => p.level)))].sort((a, b) => a - b);
  const measures = (group: RunGroup, level: number) => group.runs.some((r) => r.curve.some((p) => p.level === level));
  const inBoth = (level: number) => measures(base, level) && measures(head, level);

  // Every level gets three verdicts (QPS, p50, p99): Bonferroni-adjust over all of them so that
  // together they hold at the stated confidence, and two identical releases read "no change at any
  // level" that often — the promise a team acts on, not one per cell.
  const compared = Math.max(1, levels.filter((l) => inBoth(l)).length);
  const common = { minEffect: options.minEffect, confidence: 1 - (1 - confidence) / (METRICS_PER_LEVEL * compared) };
  const widen = smallSampleWidening(common.confidence, degreesOfFreedom(base, head, runToRun));

  const replicatesOf = (group: RunGroup) => {
    const noise = group.runs.length === 1 ? runToRun : null;
    const byLevel = new Map<number, Replicates>();
    for (const level of levels) {
      const perRun = group.runs.map((r) => withinRun(r.samples.find((s) => s.level === level), resamples, sampler));
      const rep = (m: Metric) => widenAroundMean(groupReplicates(perRun.map((p) => p[m]), resamples, sampler, noise ? noise[m] : null), widen);
      byLevel.set(level, { qps: rep('qps'), p50_ms: rep('p50_ms'), p99_ms: rep('p99_ms') });
    }
    return byLevel;
  };
  const baseReps = replicatesOf(base);
  const headReps = replicatesOf(head);
  const flagsAt = (level: number) => [...groupFlags(base, 'base', level), ...groupFlags(head, 'head', level)];

  const delta = (level: number | null, metric: Metric, baseLevel = level, headLevel = level) =>
    metricDelta({
      base: baseLevel === null ? null : groupValue(base, baseLevel, metric),
      head: headLevel === null ? null : groupValue(head, headLevel, metric),
      baseReplicates: baseLevel === null ? null : (baseReps.get(baseLevel)?.[metric] ?? null),
      headReplicates: headLevel === null ? null : (headReps.get(headLevel)?.[metric] ?? null),
      higherIsBetter: metric === 'qps',
      ...common,
    });

  const rows: LevelComparison[] = levels.map((level) => {
    const flags = flagsAt(level);
    return {
      level,
      in_base: measures(base, level),
      in_head: measures(head, level),
      flags,
      qps: notComparable(delta(level, 'qps'), flags),
      p50_ms: notComparable(delta(level, 'p50_ms'), flags),
      p99_ms: notComparable(delta(level, 'p99_ms'), flags),
    };
  });

  const basePeak = peakLevel(base, levels);
  const headPeak = peakLevel(head, levels);
  const peakFlags = [...(basePeak === null ? [] : groupFlags(base, 'base', basePeak)), ...(headPeak === null ? [] : groupFlags(head, 'head', headPeak))];
  const maxQps = notComparable(delta(null, 'qps', basePeak, headPeak), peakFlags);
  const baseKnee = groupKnee(base);
  const headKnee = groupKnee(head);
  const kneeLevel = baseKnee?.level ?? null;
  const kneeRow = kneeLevel === null ? undefined : rows.find((r) => r.level === kneeLevel);
  const p99_at_base_knee = { ...(kneeRow?.p99_ms ?? delta(null, 'p99_ms')), level: kneeLevel };
  const knee = {
    base: baseKnee?.level ?? null,
    head: headKnee?.level ?? null,
    change: baseKnee && headKnee ? headKnee.level / baseKnee.level - 1 : null,
    base_bracket: baseKnee?.bracket ?? null,
    head_bracket: headKnee?.bracket ?? null,
    within_grid: baseKnee !== null && headKnee !== null && kneesWithinGrid(baseKnee, headKnee),
  };
  const verdict = overallVerdict([maxQps, p99_at_base_knee]);
  const noise = noiseBasis(base, head, runToRun);

  const parts = [`max throughput ${formatChangeWithInterval(maxQps.change, maxQps.ci_low, maxQps.ci_high)} (${formatQps(maxQps.base)} → ${formatQps(maxQps.head)} req/s)`];
  if (maxQps.verdict === 'not comparable') parts[0] += ' — not comparable: the agent was the limit at a peak';
  if (knee.base !== null && knee.head !== null && knee.base !== knee.head) {
    parts.push(`knee moved from ${formatLevel(knee.base)} to ${formatLevel(knee.head)}${knee.within_grid ? ' (within the grid: the levels swept cannot tell them apart)' : ''}`);
  }
  if (kneeRow && kneeLevel !== null) parts.push(`p99 at ${options.parameter} ${formatLevel(kneeLevel)} ${formatChangeWithInterval(p99_at_base_knee.change, p99_at_base_knee.ci_low, p99_at_base_knee.ci_high)}`);
  const verdictText = verdict === 'no significant change' ? 'No significant change' : `${verdict[0]?.toUpperCase()}${verdict.slice(1)}`;
  const caveat = noise.basis === 'within-run only' ? ' Single runs: run-to-run noise not measured.' : '';
  const summary = `${head.label} vs ${base.label}: ${parts.join(', ')}. ${verdictText}.${caveat}`;

  return {
    levels: rows,
    overall: { max_qps: { ...maxQps, base_level: basePeak, head_level: headPeak }, knee, p99_at_base_knee, verdict, summary },
    noise,
  };
}

/** One run against one run: a comparison of two groups of one. */
export function compareRuns(base: RunSamples, head: RunSamples, options: CompareOptions): ReturnType<typeof compareGroups> {
  return compareGroups({ label: base.label, runs: [base] }, { label: head.label, runs: [head] }, options);
}
