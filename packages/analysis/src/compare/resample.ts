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
