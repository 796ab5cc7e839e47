import { describe, expect, it } from 'vitest';
import { calibrateChangePoints } from '../testing/index.ts';
import { changePoints, eDivisive } from '../src/history/index.ts';
import { createSampler } from '../src/compare/sampler.ts';

describe('E-divisive means', () => {
  it('splits a clean step exactly where it happens, with the permutation p-value at its floor', () => {
    const x = Array.from({ length: 20 }, (_, i) => (i >= 12 ? 1 : 0));
    const found = eDivisive(x, createSampler(1));
    expect(found.map((s) => s.index)).toEqual([12]);
    expect(found[0]!.p_value).toBe(1 / 200);
  });

  it('finds two steps by bisection, and none in a constant series', () => {
    const x = Array.from({ length: 30 }, (_, i) => (i < 10 ? 0 : i < 20 ? 2 : 1));
    expect(eDivisive(x, createSampler(3)).map((s) => s.index)).toEqual([10, 20]);
    expect(eDivisive(Array(20).fill(5), createSampler(3))).toEqual([]);
  });

  it('never makes a segment shorter than the minimum', () => {
    const x = Array.from({ length: 20 }, (_, i) => (i >= 17 ? 10 : 0));
    // Three high values at the end: with segments of at least 4 the nearest split is at 16.
    expect(eDivisive(x, createSampler(1), { minSize: 4 }).map((s) => s.index)).toEqual([16]);
    expect(eDivisive(x, createSampler(1), { minSize: 3 }).map((s) => s.index)).toEqual([17]);
  });
});

describe('change points of a release history', () => {
  it('names the first release after a +10% step, its size on the log scale and an interval around it; the same seed gives the same answer', () => {
    const noise = [0.01, -0.02, 0.015, 0, -0.01, 0.02, -0.015, 0.005, 0.01, -0.005];
    const values = [...noise.map((n) => 100 * Math.exp(n)), ...noise.map((n) => 110 * Math.exp(-n))];
    const [cp, ...rest] = changePoints(values, { seed: 7 });
    expect(rest).toEqual([]);
    expect(cp!.index).toBe(10);
    expect(cp!.ratio).toBeCloseTo(1.1, 2);
    expect(cp!.log_ratio).toBeCloseTo(Math.log(cp!.ratio), 12);
    expect(cp!.ratio_low).toBeLessThan(cp!.ratio);
    expect(cp!.ratio_high).toBeGreaterThan(cp!.ratio);
    expect(cp!.ratio_low).toBeGreaterThan(1.05);
    expect(cp!.ratio_high).toBeLessThan(1.15);
    expect([cp!.before, cp!.after]).toEqual([10, 10]);
    expect(changePoints(values, { seed: 7 })).toEqual([cp]);
  });

  it('refuses values that have no logarithm, and a minimum segment of one', () => {
    expect(() => changePoints([1, 2, 0])).toThrow(/positive/);
    expect(() => changePoints([1, 2, 3], { minSize: 1 })).toThrow(/minSize/);
  });

  // The README quotes bench/change-points.calibrate.ts at 1,000 trials; this holds the targets on 200.
  it('A/A: 20 releases at 3% lognormal noise give no change point in at least 95% of 200 trials', () => {
    const r = calibrateChangePoints({ releases: 20, noise: 0.03, step: 1, stepFrom: 0, stepTo: 0 }, 200, 11);
    expect(r.none / r.trials).toBeGreaterThanOrEqual(0.95);
  });

  it('a +10% step at 3% noise (release 5–15 of 20) is found within one release in at least 90% of 200 trials', () => {
    const r = calibrateChangePoints({ releases: 20, noise: 0.03, step: 1.1, stepFrom: 5, stepTo: 15 }, 200, 12);
    expect(r.within1 / r.trials).toBeGreaterThanOrEqual(0.9);
  });
});
