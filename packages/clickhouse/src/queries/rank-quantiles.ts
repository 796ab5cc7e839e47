/**
 * The exact curve interpolates linearly between the order statistics at ranks ⌊q(n−1)⌋ and the
 * next (numpy's default). A DDSketch answers a level q with the value at rank ⌊q(n−1)⌋ (within
 * its relative accuracy), so asking it for both neighbouring ranks and interpolating the same way
 * keeps the rollup within the sketch's accuracy of the exact answer even where neighbouring order
 * statistics are far apart (a heavy tail's p99.9 over a few thousand requests).
 */
export interface RankPair {
  /** Sketch levels that land on ranks k and k + 1 (mid-rank, so float rounding cannot slip a rank). */
  lo: number;
  hi: number;
  /** Weight of the upper rank. */
  frac: number;
}

export function rankPair(q: number, n: number): RankPair {
  if (n <= 1) return { lo: 0, hi: 0, frac: 0 };
  const h = q * (n - 1);
  const k = Math.floor(h);
  const level = (rank: number) => Math.min(1, (rank + 0.5) / (n - 1));
  return { lo: level(k), hi: level(Math.min(k + 1, n - 1)), frac: h - k };
}

/** The interpolated value from the sketch's answers at the two ranks; null without samples. */
export function interpolate(pair: RankPair, lo: number | null, hi: number | null, n: number): number | null {
  if (n === 0 || lo === null || hi === null || Number.isNaN(lo) || Number.isNaN(hi)) return null;
  return lo + pair.frac * (hi - lo);
}
