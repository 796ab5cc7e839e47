import type { Sampler } from './sampler.ts';

/** Bootstrap replicates of the mean: resample the values with replacement, B times. */
export function bootstrapMeans(values: readonly number[], resamples: number, sampler: Sampler): Float64Array {
  const n = values.length;
  const out = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.min(n - 1, Math.floor(sampler.uniform() * n))] as number;
    out[b] = sum / n;
  }
  return out;
}

/**
 * Bootstrap replicates of the q-quantile without materialising resamples. The k-th smallest of n
 * draws from the empirical distribution is sorted[⌊n·U₍ₖ₎⌋] where U₍ₖ₎ ~ Beta(k, n−k+1), so one
 * beta draw gives one replicate: exact, and cheap enough for every sample ClickHouse returns.
 */
export function bootstrapQuantiles(sorted: Float64Array, q: number, resamples: number, sampler: Sampler): Float64Array {
  const n = sorted.length;
  const k = Math.min(n, Math.max(1, Math.ceil(q * n)));
  const out = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    const u = sampler.beta(k, n - k + 1);
    out[b] = sorted[Math.min(n - 1, Math.floor(n * u))] as number;
  }
  return out;
}

/** The (lo, hi) percentile interval of head/base − 1 over paired independent replicates. */
export function relativeChangeInterval(base: Float64Array, head: Float64Array, confidence: number): { low: number; high: number } | null {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(base.length, head.length); i++) {
    const b = base[i] as number;
    if (b > 0) ratios.push((head[i] as number) / b - 1);
  }
  if (ratios.length < 10) return null;
  ratios.sort((x, y) => x - y);
  const tail = (1 - confidence) / 2;
  const at = (p: number) => ratios[Math.min(ratios.length - 1, Math.max(0, Math.round(p * (ratios.length - 1))))] as number;
  return { low: at(tail), high: at(1 - tail) };
}
