import tQuantile from '@stdlib/stats-base-dists-t-quantile';

/** Degrees of freedom large enough that Student's t is the normal distribution. */
const NORMAL_DF = 1e6;

/**
 * How much wider an interval must be when the spread between runs is estimated from few of them:
 * Student's t over the normal quantile at the interval's level (a percentile bootstrap behaves like
 * a normal interval, which with 3 runs a side is far too narrow). 1 when nothing is estimated.
 */
export function smallSampleWidening(confidence: number, degreesOfFreedom: number): number {
  if (!(degreesOfFreedom > 0)) return 1;
  const p = 1 - (1 - confidence) / 2;
  return tQuantile(p, degreesOfFreedom) / tQuantile(p, NORMAL_DF);
}

/** Scales replicates' distances from their mean by `factor`, in place. */
export function widenAroundMean(replicates: Float64Array | null, factor: number): Float64Array | null {
  if (!replicates || factor === 1) return replicates;
  const mean = replicates.reduce((a, b) => a + b, 0) / replicates.length;
  for (let i = 0; i < replicates.length; i++) replicates[i] = mean + ((replicates[i] as number) - mean) * factor;
  return replicates;
}
