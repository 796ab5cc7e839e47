import { formatLevel, formatPercent, formatQps, formatR2 } from '@kneeboard/contracts/figures';
import { at } from './format.ts';
import { hardLimit } from './hard-limit.ts';
import type { UslFitResult } from './usl-fit.ts';
import { uslThroughput } from './usl.ts';

interface Point {
  level: number;
  qps: number;
}

/**
 * Below this R² the USL explains too little of the curve for its coefficients to mean much. A high
 * R² is not enough on its own: a fixed pool's sharp corner (linear, then flat) gets R² ≈ 0.95 from
 * a USL that is 30% off at one unit of load and peaks above flat data, so the residuals are read too.
 */
export const POOR_FIT_R2 = 0.9;

/**
 * A fit off at any measured level by more than this share of the highest measured throughput follows
 * a shape the USL does not have. Measured on 3,000 seeded USL curves (5–12 levels, 1–5% uniform
 * noise): the worst level was off by 5.4% of the top (p99 4.3%), the published SPEC SDM91 fit by
 * 6.0%, seed 001 by 6.7%; on 1,000 fixed-pool curves (min(N, W)·1000/S, up to 3% noise, doubling
 * and finer grids) by 10.9% at least (median 17%): no genuine curve is flagged, every fixed pool is
 * (`bench/usl-trust.calibrate.ts` replays this). It is measured against the top, not the level's own
 * throughput: least squares on raw throughput leaves small levels relatively loose (SPEC SDM91's
 * published λ is 39% above its X(1)), so a relative miss at one unit of load proves nothing alone.
 */
export const MAX_LEVEL_MISS = 0.09;

/**
 * The fit falling by 7% or more, at the measured levels, across levels where the measurements stay
 * within 3% of their best is a fall the data does not show. Same seeded curves: 1 false alarm in
 * 3,000 genuine USL sweeps, 932 of 1,000 fixed-pool sweeps caught (the miss check above catches all
 * 1,000). A runs test on the residuals' signs caught none of 500 fixed pools: with 5–12 levels it
 * has no power, so it is not used.
 */
const FLAT_MEASURED = 0.97;
const FITTED_FALL = 0.93;
/** Levels within 5% of the measured peak form the plateau the tail check reads. */
const PLATEAU = 0.95;

/** What the checks read of a fit: the analysis' own result, or the `UslFit` a RunAnalysis carries. */
type FitShape = Pick<UslFitResult, 'lambda' | 'sigma' | 'kappa' | 'r2' | 'peak_qps' | 'model'>;

export interface UslTrust {
  trusted: boolean;
  /** Why not, one sentence each, worst first; empty when trusted. */
  reasons: string[];
}

function worstMiss(points: readonly Point[], fit: FitShape, parameter: string): string | null {
  const top = Math.max(...points.map((p) => p.qps));
  let worst: { p: Point; fitted: number; miss: number } | null = null;
  for (const p of points) {
    const fitted = uslThroughput(p.level, fit);
    const miss = Math.abs(p.qps - fitted) / top;
    if (miss > MAX_LEVEL_MISS && (worst === null || miss > worst.miss)) worst = { p, fitted, miss };
  }
  if (worst === null) return null;
  // λ is the fit's throughput at one unit of load: set beside X(1) it shows how far off the shape is.
  const one = points[0]?.level === 1 ? points[0] : undefined;
  const lambda = one && worst.p !== one ? `; its λ is ${formatQps(fit.lambda)} QPS against ${formatQps(one.qps)} measured at 1` : '';
  return (
    `The USL fit is off by ${formatPercent(worst.miss)} of the peak at ${at(parameter, worst.p.level)} ` +
    `(${formatQps(worst.fitted)} QPS fitted, ${formatQps(worst.p.qps)} measured${lambda}): ` +
    'the curve has a shape the USL does not follow, so σ, κ and the peak are not trusted.'
  );
}

function fallOverFlatTail(points: readonly Point[], fit: FitShape, parameter: string): string | null {
  const peak = Math.max(...points.map((p) => p.qps));
  const tail = points.slice(points.findIndex((p) => p.qps >= PLATEAU * peak));
  const first = tail[0];
  const last = tail[tail.length - 1];
  if (first === undefined || last === undefined || first === last) return null;
  if (last.qps < FLAT_MEASURED * peak) return null;
  // Only the fit's values at measured levels: a true peak between two swept levels, both on its
  // slopes, is a shape the sweep could not see, not a disagreement with it.
  const fitted = tail.map((p) => uslThroughput(p.level, fit));
  const fittedTop = Math.max(...fitted);
  const from = tail[fitted.indexOf(fittedTop)] ?? first;
  const fittedLast = fitted[fitted.length - 1] ?? fittedTop;
  if (fittedLast >= FITTED_FALL * fittedTop) return null;
  const head =
    fit.peak_qps !== null && fit.model === 'usl' && fit.peak_qps > peak
      ? `The USL fit peaks at ${formatQps(fit.peak_qps)} QPS, above anything measured, and falls`
      : 'The USL fit falls';
  return (
    `${head} ${formatPercent(1 - fittedLast / fittedTop)} from ${at(parameter, from.level)} to ${formatLevel(last.level)} ` +
    `where the measured throughput is flat (within ${formatPercent(1 - FLAT_MEASURED)} of ${formatQps(peak)} QPS): ` +
    "the fall is the model's, not the data's."
  );
}

/**
 * Whether the fit describes the curve well enough for σ, κ and the peak to mean something, and be
 * drawn over the measurements by default: R² high enough, no level missed by more than noise can
 * explain, no fall the data does not show, and no hard limit in the measurements. The one home of this rule: the analysis sends it as
 * `usl_trusted` (and the first reason as `usl_untrusted_reason`), readers never judge R² themselves.
 */
export function uslTrust(points: readonly Point[], fit: FitShape | null, parameter: string): UslTrust {
  if (fit === null) return { trusted: false, reasons: [] };
  const reasons: string[] = [];
  if (fit.r2 < POOR_FIT_R2) reasons.push(`The USL fits poorly (R² = ${formatR2(fit.r2)}): read σ, κ and the peak with care.`);
  const miss = worstMiss(points, fit, parameter);
  if (miss) reasons.push(miss);
  const tail = fallOverFlatTail(points, fit, parameter);
  if (tail) reasons.push(tail);
  // A corner the measurements show outright (linear, then flat) is not the USL's smooth bend: a fit
  // close enough to pass the checks above still draws a peak above the flat part and explains the
  // cap as contention and coherency.
  const cap = hardLimit(points);
  if (cap) {
    reasons.push(
      `Throughput rises in proportion to the load and is flat from ${at(parameter, cap.level)} on: a hard limit, ` +
        "which the USL's smooth bend only imitates, so σ, κ and the peak describe nothing here.",
    );
  }
  return { trusted: reasons.length === 0, reasons };
}
