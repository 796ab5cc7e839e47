import type { ChangeVerdict, CurvePoint, KneeBracket, LevelComparison, LevelFlag, MetricDelta, NoiseBasis, OverallComparison } from '@kneeboard/contracts';
import { kneesWithinGrid } from '../knee-bracket.ts';
import { formatChangeWithInterval, formatDegreesOfFreedom, formatLevel, formatQps, formatShare } from '@kneeboard/contracts/figures';
import { headline } from './headline.ts';
import { metricDelta, type SideVariance } from './metric-delta.ts';
import { bootstrapQuantiles } from './resample.ts';
import type { RunToRunNoise } from './run-to-run.ts';
import { RUN_TO_RUN_FLOOR, runToRunSpread, type RunCell, type Spread } from './run-spread.ts';
import { createSampler, type Sampler } from './sampler.ts';

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
  /** The history consulted for it (run ids of the repeats found, possibly none, and the cut-off): recorded so a permalink can pin it. */
  history?: { runs: string[]; asof: number } | null;
}

export const DEFAULT_CONFIDENCE = 0.95;
export const DEFAULT_RESAMPLES = 2000;
/** Fewer buckets or latency samples than this and an interval means little. */
const MIN_BUCKETS = 3;
const MIN_LATENCIES = 20;
const METRICS_PER_LEVEL = 3;

type Metric = 'qps' | 'p50_ms' | 'p99_ms';
const METRICS: readonly Metric[] = ['qps', 'p50_ms', 'p99_ms'];
/** Sampling variance of the log of each metric in one run at one level, with its degrees of freedom; null where there is too little data. */
type Sampling = Record<Metric, { variance: number; df: number } | null>;

/** Variance of the log of a mean: s²/(k·m²) over the buckets. */
function logMeanVariance(values: readonly number[]): number | null {
  const k = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / k;
  if (!(mean > 0)) return null;
  const s2 = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (k - 1);
  return s2 / (k * mean * mean);
}

/** Variance of the log of bootstrap replicates of a quantile. */
function logReplicateVariance(replicates: Float64Array): number | null {
  let sum = 0;
  let sum2 = 0;
  for (const x of replicates) {
    if (!(x > 0)) return null;
    const l = Math.log(x);
    sum += l;
    sum2 += l * l;
  }
  const n = replicates.length;
  return Math.max(0, (sum2 - (sum * sum) / n) / (n - 1));
}

/** How noisy one run's QPS, p50 and p99 are at a level, from its own requests. */
function withinRun(samples: LevelSamples | undefined, resamples: number, sampler: Sampler): Sampling {
  if (!samples) return { qps: null, p50_ms: null, p99_ms: null };
  const buckets = samples.per_second_ok.length;
  const qpsVariance = buckets >= MIN_BUCKETS ? logMeanVariance(samples.per_second_ok) : null;
  const qps = qpsVariance === null ? null : { variance: qpsVariance, df: buckets - 1 };
  if (samples.latencies.length < MIN_LATENCIES) return { qps, p50_ms: null, p99_ms: null };
  const sorted = Float64Array.from(samples.latencies).sort();
  const quantile = (q: number) => {
    const variance = logReplicateVariance(bootstrapQuantiles(sorted, q, resamples, sampler));
    return variance === null ? null : { variance, df: Infinity };
  };
  return { qps, p50_ms: quantile(0.5), p99_ms: quantile(0.99) };
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

const pct = (x: number) => `±${formatShare(x)}`;
const dfText = formatDegreesOfFreedom;

/** What the intervals rest on, in words: how many runs a side, where the run-to-run spread came from, how sure it is. */
function noiseBasis(base: RunGroup, head: RunGroup, borrowed: RunToRunNoise | null, consulted: CompareOptions['history'], spread: Record<Metric, Spread | null>, levelsUsed: number): NoiseBasis {
  const counts = { base_runs: base.runs.length, head_runs: head.runs.length };
  const history = consulted ?? null;
  const own = (counts.base_runs >= 2 || counts.head_runs >= 2) && levelsUsed > 0 && METRICS.some((m) => spread[m] !== null);
  const used = Object.fromEntries(METRICS.map((m) => [m, spread[m] ? { sd: Math.sqrt(spread[m].tau2), df: spread[m].df, floored: spread[m].floored } : null])) as NoiseBasis['spread'];
  const q = spread.qps;
  const runs = `${counts.base_runs} base and ${counts.head_runs} head run${counts.head_runs === 1 ? '' : 's'}`;
  const spreadWords = q
    ? `run-to-run spread QPS ${pct(Math.sqrt(q.tau2))}${q.floored ? ' (the floor)' : ''}, p50 ${pct(Math.sqrt(spread.p50_ms?.tau2 ?? 0))}, p99 ${pct(Math.sqrt(spread.p99_ms?.tau2 ?? 0))}, ${dfText(q.df)} degrees of freedom`
    : 'no run-to-run spread';
  const sources = [own ? `this comparison's repeats pooled across ${levelsUsed} level${levelsUsed === 1 ? '' : 's'} and both sides` : null, borrowed ? `${history && history.runs.length > 0 ? `${history.runs.length} ` : ''}earlier repeats of this service` : null].filter(Boolean).join(' and ');
  const method = `Intervals on the log of head ÷ base (never below −100%) from ${runs}: ${spreadWords}${sources ? ` (from ${sources})` : ''}, floor ${pct(RUN_TO_RUN_FLOOR)}, Student's t; each run's own sampling noise added.`;
  if (counts.base_runs >= 2 && counts.head_runs >= 2 && own) {
    return { ...counts, basis: 'repeats', run_to_run: null, note: `The run-to-run spread is measured from the ${runs} themselves (pooled across levels and both sides): run-to-run noise is inside the intervals.`, method, spread: used, history: null };
  }
  if (borrowed) {
    return {
      ...counts,
      basis: 'history',
      run_to_run: { qps: borrowed.qps, p50_ms: borrowed.p50_ms, p99_ms: borrowed.p99_ms, df: borrowed.df },
      note: `A side has one run: its intervals add the run-to-run spread measured in earlier repeats of this service (QPS ${pct(borrowed.qps)}, p50 ${pct(borrowed.p50_ms)}, p99 ${pct(borrowed.p99_ms)})${history ? `, as of ${new Date(history.asof).toISOString()}` : ''}.`,
      method,
      spread: used,
      history,
    };
  }
  if (own) {
    return { ...counts, basis: 'repeats', run_to_run: null, note: `A side has one run: the run-to-run spread comes from the other side's repeats (pooled across levels) and is applied to both.`, method, spread: used, history };
  }
  if (counts.base_runs >= 2 && counts.head_runs >= 2) {
    return {
      ...counts,
      basis: 'within-run only',
      run_to_run: null,
      note: 'No level has every run of both sides measured, so the run-to-run spread could not be estimated: the intervals see only the noise within each run and cannot separate a change from a busier machine.',
      method,
      spread: used,
      history,
    };
  }
  return {
    ...counts,
    basis: 'within-run only',
    run_to_run: null,
    note: 'A side has one run and no earlier repeats of this service measured the run-to-run noise: the intervals see only the noise within each run and cannot separate a change from a busier machine. Repeat the sweep (kneeboard sweep --repeat 3) to measure it.',
    method,
    spread: used,
    history,
  };
}

/**
 * Compares a head group of runs with a base group level by level, with intervals of each relative
 * change on the log scale — the run-to-run spread (pooled across levels and both sides, or borrowed
 * from earlier repeats) plus each run's sampling noise, Student's t for the few runs behind the
 * spread — and sums it up: peak throughput, knee shift, and p99 at the base's knee. Levels only one
 * side has are kept with null on the other (a gap, never a zero). A level where either side's agent
 * was the limit gets `not comparable`, never a verdict.
 */
export function compareGroups(base: RunGroup, head: RunGroup, options: CompareOptions): { levels: LevelComparison[]; overall: OverallComparison; noise: NoiseBasis } {
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const sampler = createSampler(options.seed);
  const levels = [...new Set([...base.runs, ...head.runs].flatMap((r) => r.curve.map((p) => p.level)))].sort((a, b) => a - b);
  const measures = (group: RunGroup, level: number) => group.runs.some((r) => r.curve.some((p) => p.level === level));
  const inBoth = (level: number) => measures(base, level) && measures(head, level);
  const flagsAt = (level: number) => [...groupFlags(base, 'base', level), ...groupFlags(head, 'head', level)];

  // Every level gets three verdicts (QPS, p50, p99), and peak throughput one more (its levels may
  // differ between the sides): Bonferroni-adjust over all of them so that
  // together they hold at the stated confidence, and two identical releases read "no change at any
  // level" that often — the promise a team acts on, not one per cell.
  const compared = Math.max(1, levels.filter((l) => inBoth(l)).length);
  const common = { minEffect: options.minEffect, confidence: 1 - (1 - confidence) / (METRICS_PER_LEVEL * compared + 1) };

  // Each run's value and sampling noise, per level and metric.
  const cellsOf = (group: RunGroup) =>
    new Map(
      levels.map((level) => {
        const perRun = group.runs.map((r) => {
          const sampling = withinRun(r.samples.find((s) => s.level === level), resamples, sampler);
          const point = r.curve.find((p) => p.level === level && !p.in_progress);
          return Object.fromEntries(
            METRICS.map((m) => {
              const value = point ? valueOf(point, m) : null;
              const v = sampling[m];
              return [m, value !== null && value > 0 && v !== null ? { value, sampling: v.variance, samplingDf: v.df } : null];
            }),
          ) as Record<Metric, RunCell | null>;
        });
        return [level, perRun] as const;
      }),
    );
  const baseCells = cellsOf(base);
  const headCells = cellsOf(head);

  // The spread is estimated on levels both sides measured and no agent limited; where an agent
  // limited every one, on all of them (the agent's own noise then widens it: never narrower).
  const unflagged = levels.filter((l) => inBoth(l) && flagsAt(l).length === 0);
  const clean = unflagged.length > 0 ? unflagged : levels.filter((l) => inBoth(l));
  const single = Math.min(base.runs.length, head.runs.length) === 1;
  const borrowed = single ? (options.runToRun ?? null) : null;
  const spread = Object.fromEntries(
    METRICS.map((m) => {
      const side = (cells: typeof baseCells) => clean.map((l) => (cells.get(l) ?? []).map((c) => c[m]));
      const b = borrowed ? { sd: borrowed[m], df: borrowed.df } : null;
      return [m, runToRunSpread([side(baseCells), side(headCells)], b)];
    }),
  ) as Record<Metric, Spread | null>;

  const varianceOf = (cells: typeof baseCells, level: number | null, metric: Metric): SideVariance | null => {
    if (level === null) return null;
    const got = (cells.get(level) ?? []).flatMap((c) => (c[metric] ? [c[metric]] : []));
    if (got.length === 0) return null;
    const n2 = got.length ** 2;
    return { runs: got.length, sampling: got.reduce((a, c) => a + c.sampling, 0) / n2, samplingWeight: got.reduce((a, c) => a + (c.sampling / n2) ** 2 / c.samplingDf, 0) };
  };

  const delta = (level: number | null, metric: Metric, baseLevel = level, headLevel = level) =>
    metricDelta({
      base: baseLevel === null ? null : groupValue(base, baseLevel, metric),
      head: headLevel === null ? null : groupValue(head, headLevel, metric),
      baseVariance: varianceOf(baseCells, baseLevel, metric),
      headVariance: varianceOf(headCells, headLevel, metric),
      spread: spread[metric],
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
  const head_line = headline(overallVerdict([maxQps, p99_at_base_knee]), { maxQps, p99AtKnee: p99_at_base_knee }, rows, options.parameter);
  const verdict = head_line.verdict;
  const noise = noiseBasis(base, head, borrowed, single ? (options.history ?? null) : null, spread, clean.length);

  const parts = [`max throughput ${formatChangeWithInterval(maxQps.change, maxQps.ci_low, maxQps.ci_high)} (${formatQps(maxQps.base)} → ${formatQps(maxQps.head)} req/s)`];
  if (maxQps.verdict === 'not comparable') parts[0] += ' — not comparable: the agent was the limit at a peak';
  if (knee.base !== null && knee.head !== null && knee.base !== knee.head) {
    parts.push(`knee moved from ${formatLevel(knee.base)} to ${formatLevel(knee.head)}${knee.within_grid ? ' (within the grid: the levels swept cannot tell them apart)' : ''}`);
  }
  if (kneeRow && kneeLevel !== null) parts.push(`p99 at ${options.parameter} ${formatLevel(kneeLevel)} ${formatChangeWithInterval(p99_at_base_knee.change, p99_at_base_knee.ci_low, p99_at_base_knee.ci_high)}`);
  const caveat = noise.basis === 'within-run only' ? ' Single runs: run-to-run noise not measured.' : '';
  const summary = `${head.label} vs ${base.label}: ${parts.join(', ')}. ${head_line.text}.${caveat}`;

  return {
    levels: rows,
    overall: { max_qps: { ...maxQps, base_level: basePeak, head_level: headPeak }, knee, p99_at_base_knee, verdict, summary, regressions: head_line.regressions },
    noise,
  };
}

/** One run against one run: a comparison of two groups of one. */
export function compareRuns(base: RunSamples, head: RunSamples, options: CompareOptions): ReturnType<typeof compareGroups> {
  return compareGroups({ label: base.label, runs: [base] }, { label: head.label, runs: [head] }, options);
}
