import type { Capacity, CapacityCheck, CapacityLevel, CapacityPoint, CurvePoint, SloClause, SloJudgement } from '@kneeboard/contracts';
import { formatLevel, formatQps } from '@kneeboard/contracts/figures';
import { describeSlo, formatSlo, SLO_LATENCY_FIELDS } from '@kneeboard/contracts/slo';
import { DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES } from './compare/compare-runs.ts';
import { bootstrapQuantiles } from './compare/resample.ts';
import { createSampler, type Sampler } from './compare/sampler.ts';
import { at } from './format.ts';

/** Latencies of one level's successful requests: a uniform sample of raw rows, or the rollup's rank grid. */
export interface CapacitySamples {
  level: number;
  latencies: readonly number[];
}

export interface CapacityInput {
  curve: readonly CurvePoint[];
  slos: readonly SloClause[];
  /** What the level counts (concurrency, rate…), for the sentences. */
  parameter: string;
  /** Per level, the latency sample the percentile's bootstrap resamples; without it latencies are judged on the curve's values. */
  samples?: readonly CapacitySamples[];
  /** Where the samples came from, reported as is. */
  samplesSource?: 'exact' | 'rollup';
  /** Level → why its numbers are not the service's (generator-limited, partial): see compare's levelFlags. */
  flags?: ReadonlyMap<number, string>;
  seed?: number;
  resamples?: number;
}

/**
 * The interval's coverage, and its normal quantile for the Wilson interval on errors. Fixed rather
 * than a parameter: one confidence for every capacity answer, the comparison's.
 */
export const CAPACITY_CONFIDENCE = DEFAULT_CONFIDENCE;
const Z = 1.959964;
/**
 * The bootstrap of a q-quantile can see no further than the sample's largest values: it needs a
 * few observations above the quantile (n·(1−q) ≥ 5, so 500 requests for p99, 5,000 for p99.9), or
 * the level is `unclear` rather than judged on the sample's maximum.
 */
export const MIN_TAIL_SAMPLES = 5;

const judge = (low: number, high: number, max: number): SloJudgement => (high <= max ? 'holds' : low > max ? 'breaks' : 'unclear');

/** Wilson score interval on a binomial share, in percent: sane at 0 errors and at small n. */
function wilsonPercent(errors: number, n: number): { low: number; high: number } {
  const p = errors / n;
  const z2 = Z * Z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half) * 100, high: Math.min(1, centre + half) * 100 };
}

function errorsCheck(point: CurvePoint, maxPercent: number, slo: string): CapacityCheck {
  if (point.requests === 0) return { slo, value: null, low: null, high: null, basis: 'none', judgement: 'unclear' };
  const value = (point.errors / point.requests) * 100;
  const { low, high } = wilsonPercent(point.errors, point.requests);
  // No interval can prove a share is exactly 0: `errors<=0%` holds when none failed, breaks on the first failure.
  const judgement: SloJudgement = maxPercent === 0 ? (point.errors === 0 ? 'holds' : 'breaks') : judge(low, high, maxPercent);
  return { slo, value, low, high, basis: 'binomial', judgement };
}

function percentileInterval(sorted: Float64Array, quantile: number, resamples: number, sampler: Sampler): { low: number; high: number } {
  const reps = bootstrapQuantiles(sorted, quantile, resamples, sampler).sort();
  const tail = (1 - CAPACITY_CONFIDENCE) / 2;
  const at = (p: number) => reps[Math.min(reps.length - 1, Math.max(0, Math.round(p * (reps.length - 1))))] as number;
  return { low: at(tail), high: at(1 - tail) };
}

interface LatencyContext {
  sorted: Float64Array | null;
  resamples: number;
  sampler: Sampler;
}

function latencyCheck(point: CurvePoint, clause: Extract<SloClause, { max_ms: number }>, ctx: LatencyContext): CapacityCheck {
  const slo = formatSlo(clause);
  const { field, quantile } = SLO_LATENCY_FIELDS[clause.metric];
  const value = point[field] ?? null;
  // Only whole latencies are sampled raw; the Server-Timing parts are judged on the curve's value.
  const whole = field === 'p50_ms' || field === 'p90_ms' || field === 'p99_ms' || field === 'p999_ms';
  if (whole && ctx.sorted !== null) {
    if (ctx.sorted.length * (1 - quantile) < MIN_TAIL_SAMPLES) return { slo, value, low: null, high: null, basis: 'bootstrap', judgement: 'unclear' };
    const { low, high } = percentileInterval(ctx.sorted, quantile, ctx.resamples, ctx.sampler);
    return { slo, value, low, high, basis: 'bootstrap', judgement: judge(low, high, clause.max_ms) };
  }
  if (value === null) return { slo, value, low: null, high: null, basis: 'none', judgement: 'unclear' };
  return { slo, value, low: null, high: null, basis: 'point', judgement: value <= clause.max_ms ? 'holds' : 'breaks' };
}

function combine(checks: readonly CapacityCheck[]): SloJudgement {
  if (checks.some((c) => c.judgement === 'breaks')) return 'breaks';
  return checks.every((c) => c.judgement === 'holds') ? 'holds' : 'unclear';
}

function skipReason(point: CurvePoint, flags: ReadonlyMap<number, string> | undefined): string | null {
  if (point.in_progress) return 'still running: its window is open';
  if (point.requests === 0) return 'no requests were measured';
  return flags?.get(point.level) ?? null;
}

/** Where the first SLO to break crosses its threshold between a level that holds and the next that breaks, linear in level. */
function crossing(slos: readonly SloClause[], low: CurvePoint, high: CurvePoint): CapacityPoint {
  let t = 1;
  for (const clause of slos) {
    const lo = clause.metric === 'errors' ? (low.errors / low.requests) * 100 : low[SLO_LATENCY_FIELDS[clause.metric].field];
    const hi = clause.metric === 'errors' ? (high.errors / high.requests) * 100 : high[SLO_LATENCY_FIELDS[clause.metric].field];
    const max = clause.metric === 'errors' ? clause.max_percent : clause.max_ms;
    if (lo == null || hi == null || !(hi > max) || !(hi > lo)) continue;
    t = Math.min(t, Math.max(0, Math.min(1, (max - lo) / (hi - lo))));
  }
  return { level: low.level + t * (high.level - low.level), qps: low.qps + t * (high.qps - low.qps) };
}

const levelList = (parameter: string, levels: readonly number[]) => (levels.length === 0 ? '' : `${at(parameter, levels[0] as number)}${levels.slice(1).map((l) => `, ${formatLevel(l)}`).join('')}`);

/**
 * Capacity under SLOs, after the fact, from a run's levels. Each level is judged on every SLO: a
 * percentile `holds` when its bootstrap interval (the level's raw latencies, resampled) lies
 * entirely at or under the threshold, `breaks` when entirely over it, and is `unclear` otherwise;
 * errors are judged the same way on a Wilson interval. A level holds when every SLO holds and
 * breaks when any breaks. Generator-limited, partial and running levels are skipped and named:
 * they are never the evidence for "holds" (nor for "breaks": the agent, not the service, set them).
 * Capacity is the highest level that holds below the first that breaks; a level that holds above
 * a break is named in a warning, never counted.
 */
export function capacityUnderSlos(input: CapacityInput): Capacity {
  const { parameter, slos } = input;
  const sampler = createSampler(input.seed ?? 1);
  const resamples = input.resamples ?? DEFAULT_RESAMPLES;
  const samples = new Map((input.samples ?? []).map((s) => [s.level, s.latencies]));
  const curve = [...input.curve].filter((p) => Number.isFinite(p.level) && p.level > 0).sort((a, b) => a.level - b.level);
  const warnings: string[] = [];

  const levels: CapacityLevel[] = curve.map((point) => {
    const raw = input.samples ? (samples.get(point.level) ?? []) : null;
    const ctx: LatencyContext = { sorted: raw === null ? null : Float64Array.from(raw).sort(), resamples, sampler };
    const checks = slos.map((clause) => (clause.metric === 'errors' ? errorsCheck(point, clause.max_percent, formatSlo(clause)) : latencyCheck(point, clause, ctx)));
    const reason = skipReason(point, input.flags);
    return { level: point.level, qps: point.qps, judgement: reason === null ? combine(checks) : 'skipped', skipped_reason: reason, checks };
  });

  const judged = levels.filter((l) => l.judgement !== 'skipped');
  const firstBreak = judged.find((l) => l.judgement === 'breaks') ?? null;
  const below = firstBreak ? judged.filter((l) => l.level < firstBreak.level) : judged;
  const holds = [...below].reverse().find((l) => l.judgement === 'holds') ?? null;
  const pointAt = (level: number) => curve.find((p) => p.level === level) as CurvePoint;
  const bracket = {
    holds: holds ? { level: holds.level, qps: holds.qps } : null,
    breaks: firstBreak ? { level: firstBreak.level, qps: firstBreak.qps } : null,
    crossing: holds && firstBreak ? crossing(slos, pointAt(holds.level), pointAt(firstBreak.level)) : null,
  };

  const unclear = judged.filter((l) => l.judgement === 'unclear').map((l) => l.level);
  const skipped = levels.filter((l) => l.judgement === 'skipped').map((l) => ({ level: l.level, reason: l.skipped_reason as string }));
  const holdsAbove = firstBreak ? judged.filter((l) => l.level > firstBreak.level && l.judgement === 'holds').map((l) => l.level) : [];
  if (holdsAbove.length > 0) warnings.push(`Every SLO holds again at ${levelList(parameter, holdsAbove)}, above the break at ${formatLevel(firstBreak!.level)}: not counted as capacity.`);
  const pointChecked = [...new Set(levels.flatMap((l) => l.checks.filter((c) => c.basis === 'point').map((c) => c.slo)))];
  if (pointChecked.length > 0) warnings.push(`${pointChecked.join(', ')} judged on the curve's value alone: no raw sample to put an interval on it.`);
  const thin = [...new Set(levels.flatMap((l) => l.checks.filter((c) => c.basis === 'bootstrap' && c.low === null).map(() => l.level)))];
  if (thin.length > 0) warnings.push(`Too few requests at ${levelList(parameter, thin)} for an interval on the highest percentile asked (at least ${MIN_TAIL_SAMPLES} above it): unclear there.`);

  const within = slos.map(describeSlo).join(' and ');
  const tail = [
    unclear.length > 0 ? ` Unclear at ${levelList(parameter, unclear)}.` : '',
    skipped.length > 0 ? ` Skipped (not the service's numbers): ${levelList(parameter, skipped.map((s) => s.level))}.` : '',
  ].join('');
  let summary: string;
  if (holds && firstBreak && bracket.crossing) {
    summary = `Within ${within}: ${formatQps(holds.qps)} QPS at ${at(parameter, holds.level)}; breaks at ${formatLevel(firstBreak.level)} (crossing ≈ ${formatLevel(bracket.crossing.level)}, ≈ ${formatQps(bracket.crossing.qps)} QPS).`;
  } else if (holds) {
    summary = `Within ${within} up to the highest level judged: ${formatQps(holds.qps)} QPS at ${at(parameter, holds.level)}; no level breaks, so capacity is at least this.`;
  } else if (firstBreak) {
    summary = `${within.charAt(0).toUpperCase()}${within.slice(1)} already breaks at ${at(parameter, firstBreak.level)}${below.length === 0 ? ', the lowest level judged' : ''}: no level holds below it.`;
  } else {
    summary = `No level shows ${within} holding or breaking with confidence.`;
  }

  return {
    slos: slos.map(formatSlo),
    confidence: CAPACITY_CONFIDENCE,
    samples: input.samples ? (input.samplesSource ?? 'exact') : 'none',
    level: holds?.level ?? null,
    qps: holds?.qps ?? null,
    bracket,
    unclear_levels: unclear,
    skipped_levels: skipped,
    levels,
    summary: summary + tail,
    warnings,
  };
}
