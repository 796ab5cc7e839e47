import { normalDraw } from './run-to-run.ts';
import type { Sampler } from './sampler.ts';

/**
 * Bootstrap replicates of a group's statistic (the mean over its runs) from each run's own
 * replicates: resample the runs with replacement, then take one within-run replicate of each drawn
 * run (a hierarchical bootstrap), so the spread between runs is inside the interval, not only the
 * spread within them. With R runs the plain bootstrap's spread is √((R−1)/R) of the truth; it is
 * widened back by that factor, which matters at R = 2–3.
 *
 * A group of one run can only show the noise within it; when the run-to-run spread is known from
 * earlier repeats (`runToRun`, log-scale standard deviation), each replicate is scaled by a draw of
 * it, so a single run is not taken for the release.
 */
export function groupReplicates(perRun: ReadonlyArray<Float64Array | null>, resamples: number, sampler: Sampler, runToRun: number | null): Float64Array | null {
  const runs = perRun.filter((r): r is Float64Array => r !== null && r.length > 0);
  if (runs.length === 0) return null;
  const out = new Float64Array(resamples);
  const pick = (n: number) => Math.min(n - 1, Math.floor(sampler.uniform() * n));
  if (runs.length === 1) {
    const only = runs[0] as Float64Array;
    for (let b = 0; b < resamples; b++) {
      const within = only[b % only.length] as number;
      out[b] = runToRun ? within * Math.exp(runToRun * normalDraw(sampler)) : within;
    }
    return out;
  }
  const r = runs.length;
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let j = 0; j < r; j++) {
      const run = runs[pick(r)] as Float64Array;
      sum += run[pick(run.length)] as number;
    }
    out[b] = sum / r;
  }
  const center = out.reduce((a, b) => a + b, 0) / resamples;
  const widen = Math.sqrt(r / (r - 1));
  for (let b = 0; b < resamples; b++) out[b] = center + ((out[b] as number) - center) * widen;
  return out;
}
