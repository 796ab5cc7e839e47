import { prng } from '@kneeboard/analysis';

/**
 * Picks request indices by weight in O(1) per pick (Vose's alias method): one table built once per
 * mix, then one random number and one comparison per request. The generator is seeded
 * (mulberry32, analysis' prng), so a step's sequence of picks is reproducible from its seed.
 */
export interface WeightedPick {
  (): number;
}

export function weightedPick(weights: readonly number[], seed: number): WeightedPick {
  const n = weights.length;
  if (n === 0) throw new Error('a mix needs at least one request');
  if (n === 1) return () => 0;
  const { prob, alias } = aliasTable(weights);
  const random = prng(seed);
  return () => {
    const u = random() * n;
    const i = Math.floor(u);
    return u - i < prob[i]! ? i : alias[i]!;
  };
}

/** Vose's alias table: column i is kept with probability prob[i], else it gives alias[i]. */
export function aliasTable(weights: readonly number[]): { prob: Float64Array; alias: Uint32Array } {
  const n = weights.length;
  const total = weights.reduce((a, b) => a + b, 0);
  const scaled = weights.map((w) => (w * n) / total);
  const prob = new Float64Array(n);
  const alias = new Uint32Array(n);
  const small: number[] = [];
  const large: number[] = [];
  scaled.forEach((p, i) => (p < 1 ? small : large).push(i));
  while (small.length > 0 && large.length > 0) {
    const s = small.pop()!;
    const l = large.pop()!;
    prob[s] = scaled[s]!;
    alias[s] = l;
    scaled[l] = scaled[l]! + scaled[s]! - 1;
    (scaled[l]! < 1 ? small : large).push(l);
  }
  // What is left is 1 up to rounding.
  for (const i of [...small, ...large]) {
    prob[i] = 1;
    alias[i] = i;
  }
  return { prob, alias };
}
