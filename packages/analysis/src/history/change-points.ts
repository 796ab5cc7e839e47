import { bootstrapMeans } from '../compare/resample.ts';
import { createSampler } from '../compare/sampler.ts';
import { eDivisive, E_DIVISIVE_DEFAULTS, type EDivisiveOptions } from './e-divisive.ts';

export interface ChangePointOptions extends EDivisiveOptions {
  /** Seed of the permutations and the bootstrap: the same series always gives the same answer. */
  seed: number;
  /** Confidence of the size's interval. */
  confidence: number;
  /** Bootstrap resamples of each segment's mean. */
  resamples: number;
}

export const CHANGE_POINT_DEFAULTS: ChangePointOptions = { ...E_DIVISIVE_DEFAULTS, seed: 1, confidence: 0.95, resamples: 2000 };

export interface ChangePoint {
  /** Position in the values given: the first value after the change. */
  index: number;
  /** mean(log after) − mean(log before), over the segments either side (up to the neighbouring change points). */
  log_ratio: number;
  /** exp(log_ratio): the ratio of the segments' geometric means, after ÷ before. */
  ratio: number;
  /** Percentile bootstrap interval of the ratio (each segment's log values resampled on its own). */
  ratio_low: number;
  ratio_high: number;
  p_value: number;
  /** How many values the segments before and after hold. */
  before: number;
  after: number;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function quantile(sorted: Float64Array, q: number): number {
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

/**
 * Change points of a positive series (one value per release, oldest first), found by E-divisive
 * means on the log values: a step is a ratio, so 100 → 110 and 1000 → 1100 are the same change,
 * and noise that is multiplicative (as run-to-run spread is) is the same size everywhere.
 */
export function changePoints(values: readonly number[], options: Partial<ChangePointOptions> = {}): ChangePoint[] {
  const o = { ...CHANGE_POINT_DEFAULTS, ...options };
  if (o.minSize < 2) throw new RangeError('minSize must be at least 2: a segment of one has no within-segment distance');
  if (values.some((v) => !(v > 0) || !Number.isFinite(v))) throw new RangeError('values must be positive and finite');
  const logs = values.map(Math.log);
  const sampler = createSampler(o.seed);
  const splits = eDivisive(logs, sampler, o);
  const bounds = [0, ...splits.map((s) => s.index), logs.length];
  const tail = (1 - o.confidence) / 2;
  return splits.map((split, i) => {
    const before = logs.slice(bounds[i], split.index);
    const after = logs.slice(split.index, bounds[i + 2]);
    const a = bootstrapMeans(before, o.resamples, sampler);
    const b = bootstrapMeans(after, o.resamples, sampler);
    const diff = b.map((v, k) => v - (a[k] as number)).sort();
    const logRatio = mean(after) - mean(before);
    return {
      index: split.index,
      log_ratio: logRatio,
      ratio: Math.exp(logRatio),
      ratio_low: Math.exp(quantile(diff, tail)),
      ratio_high: Math.exp(quantile(diff, 1 - tail)),
      p_value: split.p_value,
      before: before.length,
      after: after.length,
    };
  });
}
