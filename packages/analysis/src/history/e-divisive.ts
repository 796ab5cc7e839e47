import type { Sampler } from '../compare/sampler.ts';

/**
 * E-divisive means (Matteson & James 2014, "A nonparametric approach for multiple change point
 * analysis of multivariate data", JASA 109:505), the method the `ecp` R package and Otava/Hunter
 * run on benchmark histories. Settings are documented in the package README.
 */
export interface EDivisiveOptions {
  /** Significance level of each permutation test: the search stops at the first split above it. */
  sigLevel: number;
  /** Permutations per test; the p-value is (exceedances + 1) / (permutations + 1). */
  permutations: number;
  /** Fewest observations on either side of a split. */
  minSize: number;
  /** Exponent of the distance |x − y|^alpha, in (0, 2): 1 in the paper and in ecp. */
  alpha: number;
  /**
   * Search the end κ of the second segment too, as the paper and ecp do (the default); false fixes
   * κ at the segment's end, a simplification some implementations use. With κ fixed a dip that comes back (−15% for 8
   * releases of 24, then back) is not significant at all: neither half of it is a step.
   */
  searchEnd: boolean;
}

export const E_DIVISIVE_DEFAULTS: EDivisiveOptions = { sigLevel: 0.01, permutations: 199, minSize: 3, alpha: 1, searchEnd: true };

export interface EDivisiveSplit {
  /** Index of the first observation after the change. */
  index: number;
  /** The scaled energy statistic Q̂ at the split. */
  statistic: number;
  p_value: number;
}

interface BestSplit {
  tau: number;
  q: number;
}

/**
 * The best split of x: the (τ, κ) maximising Q̂(X_τ, Y_τ(κ)) with X = x[0, τ) and Y = x[τ, κ),
 * both at least minSize long. Column prefix sums of the distance matrix make every block sum O(1),
 * so a segment of n costs O(n²) rather than O(n³) — it is run once per permutation.
 */
function bestSplit(x: readonly number[], minSize: number, alpha: number, searchEnd: boolean): BestSplit | null {
  const n = x.length;
  if (n < 2 * minSize) return null;
  // col[j][i] = Σ_{k<i} d(k, j)
  const col: Float64Array[] = [];
  for (let j = 0; j < n; j++) {
    const c = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) c[i + 1] = (c[i] as number) + Math.abs((x[i] as number) - (x[j] as number)) ** alpha;
    col.push(c);
  }
  let best: BestSplit | null = null;
  let withinLeft = 0; // Σ_{i<k<τ} d(i, k)
  for (let tau = 1; tau <= n - minSize; tau++) {
    withinLeft += (col[tau - 1] as Float64Array)[tau - 1] as number;
    if (tau < minSize) continue;
    let withinRight = 0;
    let cross = 0;
    for (let kappa = tau + 1; kappa <= n; kappa++) {
      const j = kappa - 1; // the observation joining Y
      const c = col[j] as Float64Array;
      withinRight += (c[j] as number) - (c[tau] as number);
      cross += c[tau] as number;
      const m = tau;
      const k = kappa - tau;
      if (k < minSize || (!searchEnd && kappa < n)) continue;
      const energy = (2 * cross) / (m * k) - (2 * withinLeft) / (m * (m - 1)) - (2 * withinRight) / (k * (k - 1));
      const q = ((m * k) / (m + k)) * energy;
      if (best === null || q > best.q) best = { tau, q };
    }
  }
  return best;
}

/** The strongest split over every current segment (boundaries sorted, 0 and n included). */
function strongest(x: readonly number[], bounds: readonly number[], minSize: number, alpha: number, searchEnd: boolean): { index: number; q: number } | null {
  let out: { index: number; q: number } | null = null;
  for (let s = 0; s + 1 < bounds.length; s++) {
    const a = bounds[s] as number;
    const split = bestSplit(x.slice(a, bounds[s + 1]), minSize, alpha, searchEnd);
    if (split && (out === null || split.q > out.q)) out = { index: a + split.tau, q: split.q };
  }
  return out;
}

function permuteWithin(x: readonly number[], bounds: readonly number[], sampler: Sampler): number[] {
  const out = [...x];
  for (let s = 0; s + 1 < bounds.length; s++) {
    const a = bounds[s] as number;
    for (let i = (bounds[s + 1] as number) - 1; i > a; i--) {
      const j = a + Math.min(i - a, Math.floor(sampler.uniform() * (i - a + 1)));
      const t = out[i] as number;
      out[i] = out[j] as number;
      out[j] = t;
    }
  }
  return out;
}

/**
 * Change points of x by hierarchical bisection: at each step the strongest split over the current
 * segments is tested against the same maximum taken over permutations within each segment (which
 * keeps the change points already found); significant, it is kept and the search goes on.
 * Returned in index order. Deterministic for a given sampler seed.
 */
export function eDivisive(x: readonly number[], sampler: Sampler, options: Partial<EDivisiveOptions> = {}): EDivisiveSplit[] {
  const o = { ...E_DIVISIVE_DEFAULTS, ...options };
  const bounds = [0, x.length];
  const found: EDivisiveSplit[] = [];
  // Stop counting once the test cannot pass: the answer is the same, sooner.
  const maxExceed = Math.floor(o.sigLevel * (o.permutations + 1)) - 1;
  for (;;) {
    const candidate = strongest(x, bounds, o.minSize, o.alpha, o.searchEnd);
    if (candidate === null) break;
    let exceed = 0;
    let done = 0;
    for (; done < o.permutations && exceed <= maxExceed; done++) {
      const permuted = strongest(permuteWithin(x, bounds, sampler), bounds, o.minSize, o.alpha, o.searchEnd);
      if (permuted !== null && permuted.q >= candidate.q) exceed++;
    }
    const pValue = (exceed + 1) / (o.permutations + 1);
    if (exceed > maxExceed || pValue > o.sigLevel) break;
    found.push({ index: candidate.index, statistic: candidate.q, p_value: pValue });
    bounds.push(candidate.index);
    bounds.sort((a, b) => a - b);
  }
  return found.sort((a, b) => a.index - b.index);
}
