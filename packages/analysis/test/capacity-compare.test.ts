import { describe, expect, it } from 'vitest';
import { Capacity, CapacityChange } from '@kneeboard/contracts';
import { compareCapacity, isCapacityDrop } from '../src/index.ts';

/** A run's capacity as the API answers it: the level that holds, the first that breaks (null: none did). */
function run(holds: { level: number; qps: number } | null, breaks: { level: number; qps: number } | null): Capacity {
  return Capacity.parse({
    slos: ['p99<=50ms'],
    confidence: 0.95,
    samples: 'exact',
    level: holds?.level ?? null,
    qps: holds?.qps ?? null,
    bracket: { holds, breaks, crossing: null },
    unclear_levels: [],
    skipped_levels: [],
    levels: [],
    summary: '',
    warnings: [],
  });
}

describe('compareCapacity', () => {
  it('one run a side: the change, and the interval the brackets allow (each end against the other side’s far end)', () => {
    const c = CapacityChange.parse(compareCapacity([run({ level: 16, qps: 400 }, { level: 17, qps: 410 })], [run({ level: 20, qps: 500 }, { level: 21, qps: 520 })], 'v2'));
    expect(c.basis).toBe('brackets');
    expect(c.change).toBeCloseTo(500 / 400 - 1, 12);
    expect(c.ci_low).toBeCloseTo(500 / 410 - 1, 12);
    expect(c.ci_high).toBeCloseTo(520 / 400 - 1, 12);
    expect(c.summary).toBe('v2 serves +25% [+22%…+30%] within p99<=50ms: 500 against 400 req/s (1 base and 1 head run, interval from the brackets)');
  });

  it('a drop: significant when the whole interval is below no change and the estimate is at least the threshold down', () => {
    const c = compareCapacity([run({ level: 16, qps: 400 }, { level: 17, qps: 410 })], [run({ level: 12, qps: 300 }, { level: 13, qps: 320 })], 'v2');
    expect(c.change).toBeCloseTo(-0.25, 12);
    expect(c.ci_high).toBeCloseTo(320 / 400 - 1, 12);
    expect(isCapacityDrop(c, 0.05)).toBe(true);
    expect(isCapacityDrop(c, 0.3)).toBe(false);
    // Brackets that overlap say nothing significant, however large the estimate.
    const overlapping = compareCapacity([run({ level: 8, qps: 400 }, { level: 16, qps: 800 })], [run({ level: 6, qps: 300 }, { level: 12, qps: 600 })], 'v2');
    expect(overlapping.ci_high! > 0).toBe(true);
    expect(isCapacityDrop(overlapping, 0.05)).toBe(false);
  });

  it('a head that never broke has no upper bound, and can never be a significant drop on the top end', () => {
    const c = compareCapacity([run({ level: 16, qps: 400 }, { level: 17, qps: 410 })], [run({ level: 32, qps: 800 }, null)], 'v2');
    expect(c.ci_high).toBeNull();
    expect(c.head.high).toBeNull();
    expect(isCapacityDrop(c, 0.05)).toBe(false);
    expect(c.summary).toContain('no upper bound: no head run broke an SLO');
  });

  it('a head where no level holds: no estimate, but a drop when even its first break is well under the base', () => {
    const c = compareCapacity([run({ level: 16, qps: 400 }, { level: 17, qps: 410 })], [run(null, { level: 1, qps: 50 })], 'v2');
    expect(c.change).toBeNull();
    expect(c.head).toEqual({ runs: 1, qps: null, low: 0, high: 50 });
    expect(c.ci_low).toBe(-1);
    expect(c.ci_high).toBeCloseTo(50 / 400 - 1, 12);
    expect(isCapacityDrop(c, 0.05)).toBe(true);
    expect(c.summary).toBe('v2: no capacity within p99<=50ms to compare (a head run has no level that holds)');
  });

  it('repeats on both sides: a t interval on the log capacities, never narrower than the runs’ own brackets', () => {
    const base = [run({ level: 16, qps: 400 }, { level: 17, qps: 420 }), run({ level: 16, qps: 404 }, { level: 17, qps: 424 }), run({ level: 16, qps: 396 }, { level: 17, qps: 416 })];
    const head = [run({ level: 15, qps: 360 }, { level: 16, qps: 378 }), run({ level: 15, qps: 364 }, { level: 16, qps: 382 }), run({ level: 15, qps: 356 }, { level: 16, qps: 374 })];
    const c = compareCapacity(base, head, 'v2');
    expect(c.basis).toBe('repeats');
    expect(c.change).toBeCloseTo(Math.exp((Math.log(360 * 364 * 356) - Math.log(400 * 404 * 396)) / 3) - 1, 12);
    // The runs' spread is ±1%; their brackets are ~5% wide, so the bracket floor sets the width.
    const width = Math.log(1 + c.ci_high!) - Math.log(1 + c.ci_low!);
    expect(width).toBeGreaterThan(0.05);
    expect(c.ci_low!).toBeLessThan(c.change!);
    expect(c.ci_high!).toBeGreaterThan(c.change!);
    expect(isCapacityDrop(c, 0.05)).toBe(true);
    // Identical sides: no change, an interval around it, no drop.
    const same = compareCapacity(base, base, 'v1');
    expect(same.change).toBeCloseTo(0, 12);
    expect(same.ci_low!).toBeLessThan(0);
    expect(same.ci_high!).toBeGreaterThan(0);
    expect(isCapacityDrop(same, 0.01)).toBe(false);
  });

  it('repeats where a run never broke fall back to the brackets (unbounded above)', () => {
    const base = [run({ level: 16, qps: 400 }, { level: 17, qps: 420 }), run({ level: 16, qps: 404 }, null)];
    const head = [run({ level: 15, qps: 360 }, { level: 16, qps: 378 }), run({ level: 15, qps: 364 }, { level: 16, qps: 382 })];
    const c = compareCapacity(base, head, 'v2');
    expect(c.basis).toBe('brackets');
    expect(c.base.high).toBeNull();
    expect(c.ci_low).toBe(-1);
  });
});
