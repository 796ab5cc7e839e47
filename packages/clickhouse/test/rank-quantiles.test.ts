import { describe, expect, it } from 'vitest';
import { interpolate, rankPair } from '../src/queries/rank-quantiles.ts';

/** What a DDSketch does with a level (ClickHouse: the bin holding rank ⌊q(n−1)⌋), on exact values. */
const sketchAt = (sorted: number[], q: number) => sorted[Math.floor(q * (sorted.length - 1))] as number;

/** numpy's default percentile: linear between the order statistics around q(n−1). */
function exact(sorted: number[], q: number): number {
  const h = q * (sorted.length - 1);
  const lo = Math.floor(h);
  return (sorted[lo] as number) + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)] as number) - (sorted[lo] as number));
}

describe('rank pairs: asking a sketch for both neighbouring ranks', () => {
  it('reproduces the interpolated percentile exactly when the sketch is exact at each rank', () => {
    for (const n of [1, 2, 3, 10, 101, 1000, 54_321]) {
      const sorted = Array.from({ length: n }, (_, i) => 5 / Math.pow(1 - (i + 0.5) / n, 1 / 1.5)); // Pareto quantiles: far-apart tail ranks
      for (const q of [0, 0.5, 0.9, 0.99, 0.999, 1]) {
        const pair = rankPair(q, n);
        expect(pair.lo).toBeGreaterThanOrEqual(0);
        expect(pair.hi).toBeLessThanOrEqual(1);
        const got = interpolate(pair, sketchAt(sorted, pair.lo), sketchAt(sorted, pair.hi), n);
        expect(got).toBeCloseTo(exact(sorted, q), 9);
      }
    }
  });

  it('is null without samples, never 0', () => {
    expect(interpolate(rankPair(0.5, 0), null, null, 0)).toBeNull();
    expect(interpolate(rankPair(0.5, 10), Number.NaN, 3, 10)).toBeNull();
  });
});
