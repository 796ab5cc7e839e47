import { describe, expect, it } from 'vitest';
import { logEdges, sliceBounds, sliceRange, timelineBucketMs } from '../src/queries/level-buckets.ts';

describe('level detail slicing', () => {
  it('picks the smallest readable slice that keeps a step to at most 60 slices', () => {
    expect(timelineBucketMs(3_000)).toBe(100);
    expect(timelineBucketMs(6_001)).toBe(200);
    expect(timelineBucketMs(15_000)).toBe(250);
    expect(timelineBucketMs(30_000)).toBe(500);
    expect(timelineBucketMs(60_000)).toBe(1_000);
    expect(timelineBucketMs(600_000)).toBe(10_000);
  });

  it('anchors slices at measure_from, so warm-up slices have negative indices and the edges are clipped', () => {
    const r = sliceRange(1_000, 2_300, 5_000, 500); // 1.3 s of warm-up, 2.7 s measured
    expect(r).toEqual({ kMin: -3, kMax: 5 });
    expect(sliceBounds(-3, 2_300, 500, 1_000, 5_000)).toEqual({ from: 1_000, to: 1_300 });
    expect(sliceBounds(0, 2_300, 500, 1_000, 5_000)).toEqual({ from: 2_300, to: 2_800 });
    expect(sliceBounds(5, 2_300, 500, 1_000, 5_000)).toEqual({ from: 4_800, to: 5_000 });
  });

  it('spaces histogram edges by a constant ratio from min to max', () => {
    const e = logEdges(2, 2_000, 30);
    expect(e).toHaveLength(31);
    expect(e[0]).toBe(2);
    expect(e[30]).toBe(2_000);
    expect((e[1] as number) / (e[0] as number)).toBeCloseTo((e[30] as number) / (e[29] as number), 9);
    expect(logEdges(5, 5)).toEqual([5, 5]);
  });
});
