import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import type { Capacity, CapacityChange, CapacitySide } from '@kneeboard/contracts';
import { formatChangeWithInterval, formatQps } from '@kneeboard/contracts/figures';

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

function side(runs: RunCapacity[]): CapacitySide {
  const points = runs.map((r) => r.point);
  const all = points.every((p): p is number => p !== null && p > 0);
  return {
    runs: runs.length,
    qps: all ? (points.length === 1 ? points[0]! : Math.exp(logMean(points))) : null,
    low: Math.min(...runs.map((r) => r.low)),
    high: runs.some((r) => r.high === null) ? null : Math.max(...runs.map((r) => r.high as number)),
  };
}

/**
 * Capacity under the same SLOs, base against head: each side's capacity from its runs (one
 * `Capacity` per run, `GET /runs/{id}/analysis?slo=`), and the relative change with an interval.
 * With two or more runs per side, all with a bounded bracket, the interval is Student's t on the
 * difference of the sides' mean log capacity; a run's own bracket counts as a 95% interval on its
 * capacity, and its width is a floor on the run-to-run spread (runs that all land on one level of a
 * grid do not make a zero-width interval). Otherwise the interval is the brackets' own: the lowest
 * the head can be against the highest the base can be, and the reverse (unbounded above when no
 * head run broke). Never a guess: a side with a run where no level holds has no point estimate.
 */
export function compareCapacity(base: readonly Capacity[], head: readonly Capacity[], headLabel: string): CapacityChange {
  if (base.length === 0 || head.length === 0) throw new RangeError('compareCapacity needs at least one run per side');
  const slos = base[0]!.slos;
  const [b, h] = [base.map(runCapacity), head.map(runCapacity)];
  const [bs, hs] = [side(b), side(h)];
  const change = bs.qps !== null && hs.qps !== null ? hs.qps / bs.qps - 1 : null;
  const bounded = (rs: RunCapacity[]) => rs.every((r) => r.point !== null && r.point > 0 && r.high !== null && r.high > 0);
  let basis: CapacityChange['basis'] = 'brackets';
  let ci: [number | null, number | null];
  if (b.length >= 2 && h.length >= 2 && bounded(b) && bounded(h)) {
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
  const runsSaid = `${bs.runs} base and ${hs.runs} head run${bs.runs + hs.runs > 2 ? 's' : ''}, ${basis === 'repeats' ? 'interval from the repeats' : 'interval from the brackets'}`;
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
