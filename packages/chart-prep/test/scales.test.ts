import { describe, expect, it } from 'vitest';
import { defaultXScale, isPowersOfTwo, sweepXScale, levelDomain, levelTicks, linearAxis, logAxis, logSafe, niceCeil, rangeAxis } from '../src/scales.ts';

describe('x scale', () => {
  it('is log when levels span more than 8×, linear otherwise', () => {
    expect(defaultXScale([1, 2, 4, 8, 16, 32])).toBe('log');
    expect(defaultXScale([1, 2, 4, 8])).toBe('linear'); // exactly 8×
    expect(defaultXScale([100, 200, 300])).toBe('linear');
    expect(defaultXScale([1])).toBe('linear');
    expect(defaultXScale([])).toBe('linear');
  });

  it('decides a sweep\'s axis from its first two levels, so a live run never changes axis', () => {
    const live = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64];
    // The span rule flips from linear to log at the seventh level; the sweep rule is log from the second on.
    expect(defaultXScale(live.slice(0, 6))).toBe('linear');
    expect(defaultXScale(live.slice(0, 7))).toBe('log');
    const scales = live.map((_, i) => sweepXScale(live.slice(0, i + 1)));
    expect(scales[0]).toBe('linear'); // one level: no axis to speak of
    expect(new Set(scales.slice(1))).toEqual(new Set(['log']));
    expect(sweepXScale([100, 150, 200, 250, 300, 1000])).toBe('linear');
    expect(sweepXScale([10, 20, 30, 40])).toBe('log'); // ratio 2 between the first two, as the brief's rule
    expect(sweepXScale([50, 100, 200, 400, 800])).toBe('log');
    expect(sweepXScale([8, 4, 2, 1])).toBe('log'); // order of arrival does not matter, the lowest two do
    expect(sweepXScale([0, 1, 2])).toBe('linear'); // a zero level cannot sit on a log axis
    expect(sweepXScale([])).toBe('linear');
  });

  it('recognises power-of-two sweeps', () => {
    expect(isPowersOfTwo([1, 2, 4, 512])).toBe(true);
    expect(isPowersOfTwo([1, 3])).toBe(false);
    expect(isPowersOfTwo([])).toBe(false);
  });

  it('ticks at the swept levels, thinned to twelve with both ends kept', () => {
    expect(levelTicks([4, 1, 2, 2])).toEqual([1, 2, 4]);
    const many = Array.from({ length: 40 }, (_, i) => i + 1);
    const ticks = levelTicks(many);
    expect(ticks.length).toBeLessThanOrEqual(12);
    expect(ticks[0]).toBe(1);
    expect(ticks[ticks.length - 1]).toBe(40);
  });

  it('pads a log domain on both sides and never reaches zero', () => {
    const [lo, hi] = levelDomain([1, 2, 4, 512], 'log');
    expect(lo).toBeGreaterThan(0);
    expect(lo).toBeLessThan(1);
    expect(hi).toBeGreaterThan(512);
    const [single] = levelDomain([16], 'log');
    expect(single).toBe(8);
    expect(levelDomain([1, 2, 3], 'linear')).toEqual([0, 4]);
  });

  it('rounds up to 1-2-5-ish nice numbers', () => {
    expect(niceCeil(97)).toBe(100);
    expect(niceCeil(101)).toBe(120);
    expect(niceCeil(0.33)).toBe(0.4);
    expect(niceCeil(0)).toBe(1);
  });
});

describe('log y axis', () => {
  it('bounds the positive values with 1-2-5 ticks', () => {
    expect(logAxis([49, 52, 310, 355])).toEqual({ domain: [20, 500], ticks: [20, 50, 100, 200, 500] });
  });

  it('ignores zeros, negatives and gaps', () => {
    const axis = logAxis([0, -3, null, undefined, Number.NaN, 0.2, 30]);
    expect(axis?.domain).toEqual([0.2, 50]);
    expect(axis?.ticks.every((t) => t > 0)).toBe(true);
  });

  it('keeps few ticks over many decades', () => {
    const axis = logAxis([0.3, 25_000]);
    expect(axis?.domain).toEqual([0.2, 50_000]);
    expect(axis!.ticks.length).toBeLessThanOrEqual(9);
    expect(axis!.ticks).toContain(1000);
  });

  it('widens a single value to a visible range and gives up without positive values', () => {
    expect(logAxis([100])?.domain).toEqual([100, 200]);
    expect(logAxis([0, null])).toBeNull();
  });

  it('turns what a log axis cannot draw into a gap', () => {
    expect(logSafe(0)).toBeNull();
    expect(logSafe(-1)).toBeNull();
    expect(logSafe(null)).toBeNull();
    expect(logSafe(Number.POSITIVE_INFINITY)).toBeNull();
    expect(logSafe(0.01)).toBe(0.01);
  });
});

describe('linear y axis', () => {
  it('starts at 0 with round steps and at most seven ticks', () => {
    expect(linearAxis([20, 103])).toEqual({ domain: [0, 120], ticks: [0, 20, 40, 60, 80, 100, 120] });
    expect(linearAxis([355, null])).toEqual({ domain: [0, 400], ticks: [0, 100, 200, 300, 400] });
    expect(linearAxis([36])).toEqual({ domain: [0, 40], ticks: [0, 10, 20, 30, 40] });
    expect(linearAxis([0.9])).toEqual({ domain: [0, 1], ticks: [0, 0.2, 0.4, 0.6, 0.8, 1] });
    expect(linearAxis([250])).toEqual({ domain: [0, 250], ticks: [0, 50, 100, 150, 200, 250] });
    for (const max of [1, 7, 13, 99, 101, 1130, 25_000]) {
      const { domain, ticks } = linearAxis([max]);
      expect(domain[1]).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(7);
      expect(ticks[0]).toBe(0);
    }
  });

  it('gives a unit axis when there is nothing to draw', () => {
    expect(linearAxis([]).domain).toEqual([0, 1]);
    expect(linearAxis([null, 0]).domain).toEqual([0, 1]);
  });
});

describe('rangeAxis', () => {
  it('puts a narrow band far from zero on round ticks, never two alike', () => {
    // p99 at the knee 34.8-45.4 ms: 2 ms steps, not the band's own ends.
    expect(rangeAxis(34.8, 45.4)).toEqual({ domain: [34, 46], ticks: [34, 36, 38, 40, 42, 44, 46] });
    expect(rangeAxis(22.75, 25.15)).toEqual({ domain: [22.5, 25.5], ticks: [22.5, 23, 23.5, 24, 24.5, 25, 25.5] });
    expect(rangeAxis(0, 355)).toEqual(linearAxis([355]));
    // A single value: a band of one around it.
    expect(rangeAxis(4, 4)).toEqual({ domain: [3.4, 4.6], ticks: [3.4, 3.6, 3.8, 4, 4.2, 4.4, 4.6] });
    // Not numbers: a band of one around 0, never a loop or NaN ticks.
    expect(rangeAxis(Number.NaN, Number.NaN)).toEqual({ domain: [-0.6, 0.6], ticks: [-0.6, -0.4, -0.2, 0, 0.2, 0.4, 0.6] });
    // Both ends between steps: eight ticks, the most it gives.
    expect(rangeAxis(0.5, 6.5).ticks).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
