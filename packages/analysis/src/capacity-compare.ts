import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import type { Capacity, CapacityChange, CapacitySide, CurvePoint, SloClause } from '@kneeboard/contracts';
import { formatChangeWithInterval, formatQps } from '@kneeboard/contracts/figures';
import { capacityUnderSlos, type CapacitySamples } from './capacity.ts';

/** The confidence of a capacity change's interval (two-sided). */
export const CAPACITY_CHANGE_CONFIDENCE = 0.95;
const Z95 = 1.959963984540054;

interface RunCapacity {
  /** The highest level that holds: its QPS (null when none holds). */
  point: number | null;
  /** Where capacity lies: that level's QPS (0 when none holds) … the first level that breaks (null: none broke). */
  low: number;
  high: number | null;
}

const runCapacity = (c: Capacity): RunCapacity => ({ point: c.qps, low: c.bracket.holds?.qps ?? 0, high: c.bracket.breaks?.qps ?? null });

const logMean = (xs: number[]) => xs.reduce((a, x) => a + Math.log(x), 0) / xs.length;

function side(runs: RunCapacity[], pooled: Capacity | undefined): CapacitySide {
  // One decision for the side (a single run's own, or its repeats' samples judged together), when the caller made it.
  const decision = pooled;
  if (decision) {
    const p = runCapacity(decision);
    return { runs: runs.length, qps: p.point !== null && p.point > 0 ? p.point : null, low: p.low, high: p.high, level: decision.level };
  }
  const points = runs.map((r) => r.point);
  const all = points.every((p): p is number => p !== null && p > 0);
  return {
    runs: runs.length,
    qps: all ? (points.length === 1 ? points[0]! : Math.exp(logMean(points))) : null,
    low: Math.min(...runs.map((r) => r.low)),
    high: runs.some((r) => r.high === null) ? null : Math.max(...runs.map((r) => r.high as number)),
  };
}

/** One run as the capacity judgement reads it: its curve, latency samples and the levels that are not the service's. */
export interface CapacityRun {
  curve: readonly CurvePoint[];
  samples: readonly CapacitySamples[];
  flags: ReadonlyMap<number, string>;
}

/** The q-quantile of a sorted sample (nearest rank), null when empty. */
const quantile = (sorted: Float64Array, q: number) => (sorted.length === 0 ? null : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number));
const meanOf = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * A side's repeats judged as one: at each level every run's latency sample pooled (so a level too
 * thin in each run for a p99 can be judged on all of them), requests and errors summed, QPS the
 * runs' mean, the percentiles read from the pooled sample (the Server-Timing parts: the runs' mean).
 * A level any run flags (generator-limited, partial) is skipped with that run's reason: a flagged
 * run's numbers are never evidence, and leaving only its level out of the pool would judge the
 * side on fewer runs there than elsewhere.
 */
export function pooledCapacity(runs: readonly CapacityRun[], slos: readonly SloClause[], parameter: string, seed: number): Capacity {
  const levels = [...new Set(runs.flatMap((r) => r.curve.map((p) => p.level)))].sort((a, b) => a - b);
  const flags = new Map<number, string>();
  const samples: CapacitySamples[] = [];
  const curve: CurvePoint[] = [];
  for (const level of levels) {
    const points = runs.map((r) => r.curve.find((p) => p.level === level)).filter((p): p is CurvePoint => p !== undefined);
    const pooled = runs.flatMap((r) => [...(r.samples.find((s) => s.level === level)?.latencies ?? [])]);
    const sorted = Float64Array.from(pooled).sort();
    const reason = runs.map((r) => r.flags.get(level)).find((f) => f !== undefined);
    if (reason !== undefined) flags.set(level, reason);
    else if (points.length < runs.length) flags.set(level, `measured in ${points.length} of the ${runs.length} runs only`);
    const mean = (field: 'compute_p50_ms' | 'compute_p99_ms' | 'queue_p50_ms' | 'queue_p99_ms' | 'other_p50_ms') => meanOf(points.flatMap((p) => (p[field] == null ? [] : [p[field] as number])));
    samples.push({ level, latencies: pooled });
    curve.push({
      level,
      requests: points.reduce((a, p) => a + p.requests, 0),
      errors: points.reduce((a, p) => a + p.errors, 0),
      qps: meanOf(points.map((p) => p.qps)) ?? 0,
      window_s: points.reduce((a, p) => a + p.window_s, 0),
      p50_ms: quantile(sorted, 0.5),
      p90_ms: quantile(sorted, 0.9),
      p99_ms: quantile(sorted, 0.99),
      p999_ms: quantile(sorted, 0.999),
      compute_p50_ms: mean('compute_p50_ms'),
      compute_p99_ms: mean('compute_p99_ms'),
      queue_p50_ms: mean('queue_p50_ms'),
      queue_p99_ms: mean('queue_p99_ms'),
      other_p50_ms: mean('other_p50_ms'),
      in_progress: points.some((p) => p.in_progress),
    });
  }
  return capacityUnderSlos({ curve, slos, parameter, samples, flags, seed });
}

/**
 * Capacity under the same SLOs, base against head: each side's capacity from its runs (one
 * `Capacity` per run, `GET /runs/{id}/analysis?slo=`), and the relative change with an interval.
 * With two or more runs per side, all with a bounded bracket, the interval is Student's t on the
 * difference of the sides' mean log capacity; a run's own bracket counts as a 95% interval on its
 * capacity, and its width is a floor on the run-to-run spread (runs that all land on one level of a
 * grid do not make a zero-width interval). Otherwise the interval is the brackets' own: the lowest
 * the head can be against the highest the base can be, and the reverse (unbounded above when no
 * head run broke) — with a single run on a side and `pooled` given, the summary says so ("no
 * interval: single run"): the range is the grid's, with no run-to-run noise in it. Never a guess: a side with a run where no
 * level holds has no point estimate. With `pooled` (each side's one decision: a single run's own
 * capacity, or its repeats' samples judged together by `pooledCapacity`), a side's capacity is that
 * decision's QPS and level, its range that decision's bracket; the repeats' own capacities still
 * give the interval's spread.
 */
export function compareCapacity(base: readonly Capacity[], head: readonly Capacity[], headLabel: string, pooled?: { base: Capacity; head: Capacity }): CapacityChange {
  if (base.length === 0 || head.length === 0) throw new RangeError('compareCapacity needs at least one run per side');
  const slos = base[0]!.slos;
  const [b, h] = [base.map(runCapacity), head.map(runCapacity)];
  const [bs, hs] = [side(b, pooled?.base), side(h, pooled?.head)];
  const change = bs.qps !== null && hs.qps !== null ? hs.qps / bs.qps - 1 : null;
  const bounded = (rs: RunCapacity[]) => rs.every((r) => r.point !== null && r.point > 0 && r.high !== null && r.high > 0);
  let basis: CapacityChange['basis'] = 'brackets';
  let ci: [number | null, number | null];
  if (b.length >= 2 && h.length >= 2 && bounded(b) && bounded(h) && bs.qps !== null && hs.qps !== null) {
    basis = 'repeats';
    const spread = (rs: RunCapacity[]) => {
      const logs = rs.map((r) => Math.log(r.point as number));
      const m = logMean(rs.map((r) => r.point as number));
      const sampleVar = logs.reduce((a, x) => a + (x - m) ** 2, 0) / (logs.length - 1);
      const bracketVar = rs.reduce((a, r) => a + (Math.log((r.high as number) / Math.max(r.low, 1e-9)) / (2 * Z95)) ** 2, 0) / rs.length;
      return Math.max(sampleVar, bracketVar) / rs.length;
    };
    const se = Math.sqrt(spread(b) + spread(h));
    const t = tQuantile(1 - (1 - CAPACITY_CHANGE_CONFIDENCE) / 2, b.length + h.length - 2);
    const diff = Math.log(hs.qps as number) - Math.log(bs.qps as number);
    ci = [Math.exp(diff - t * se) - 1, Math.exp(diff + t * se) - 1];
  } else {
    // The head can be as low as its lowest bracket end against the base's highest, and the reverse.
    const low = bs.high === null ? -1 : hs.low / bs.high - 1;
    const high = hs.high === null || bs.low <= 0 ? null : hs.high / bs.low - 1;
    ci = [Math.max(-1, low), high];
  }
  const within = slos.join(', ');
  const runs = `${bs.runs} base and ${hs.runs} head run${bs.runs + hs.runs > 2 ? 's' : ''}`;
  // One run on a side measures no run-to-run noise: the range is only where the grid's brackets put
  // capacity. Said so where each side was decided once (the comparison's `pooled`); the CLI's
  // per-run path keeps its sentence, which its gate's output is read by.
  const single = pooled !== undefined && (bs.runs === 1 || hs.runs === 1);
  const runsSaid = basis === 'repeats' ? `${runs}, interval from the repeats` : single ? `${runs}; no interval: single run — the range the brackets allow` : `${runs}, interval from the brackets`;
  const summary =
    change === null
      ? `${headLabel}: no capacity within ${within} to compare (${bs.qps === null ? 'a base run' : 'a head run'} has no level that holds)`
      : `${headLabel} serves ${formatChangeWithInterval(change, ci[0], ci[1])} within ${within}: ${formatQps(hs.qps)} against ${formatQps(bs.qps)} req/s (${runsSaid}${ci[1] === null ? '; no upper bound: no head run broke an SLO' : ''})`;
  return { slos, base: bs, head: hs, change, ci_low: ci[0], ci_high: ci[1], basis, summary };
}

/**
 * A significant capacity drop of at least `minDrop` (0.05 = 5%): the interval lies below no change
 * and the estimate is at least that far down — or, with no estimate, the interval's top is.
 */
export function isCapacityDrop(c: CapacityChange, minDrop: number): boolean {
  if (c.ci_high === null || !(c.ci_high < 0)) return false;
  return c.change === null ? c.ci_high <= -minDrop : c.change <= -minDrop;
}
