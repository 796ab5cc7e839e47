import tQuantile from '@stdlib/stats-base-dists-t-quantile';

/** Degrees of freedom past which Student's t is the normal distribution. */
const NORMAL_DF = 1e6;

/**
 * The variance of a log ratio: the run-to-run part, estimated from few runs (`between`, with its
 * degrees of freedom), and the runs' own sampling noise (`known`), itself estimated from the runs'
 * requests or time buckets: `knownWeight` is Σ vᵢ²/dfᵢ over its pieces (0 when they are exact).
 */
export interface LogVariance {
  between: number;
  betweenDf: number;
  /**
   * What was estimated with betweenDf degrees of freedom, when more than `between`: the spread is
   * the runs' total spread minus their known sampling noise, so its uncertainty is the total's.
   */
  betweenEstimated?: number;
  known: number;
  knownWeight?: number;
}

/** Satterthwaite's degrees of freedom of between + known. */
export function effectiveDf(v: LogVariance): number {
  const total = v.between + v.known;
  const estimated = Math.max(v.between, v.betweenEstimated ?? 0);
  const weight = (estimated > 0 && Number.isFinite(v.betweenDf) ? (estimated * estimated) / v.betweenDf : 0) + (v.knownWeight ?? 0);
  if (!(weight > 0) || !(total > 0)) return NORMAL_DF;
  return Math.min(NORMAL_DF, (total * total) / weight);
}

/**
 * The interval of a relative change, made on the log of the ratio and mapped back: exp(log r ± t·se) − 1.
 * It can never reach −100%, and a doubling and a halving are equally far from no change.
 */
export function logRatioInterval(logRatio: number, v: LogVariance, confidence: number): { low: number; high: number } {
  const se = Math.sqrt(Math.max(0, v.between + v.known));
  const t = tQuantile(1 - (1 - confidence) / 2, effectiveDf(v));
  return { low: Math.expm1(logRatio - t * se), high: Math.expm1(logRatio + t * se) };
}
