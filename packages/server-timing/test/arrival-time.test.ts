import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { arrivalTime } from '../src/timing.ts';

const stamp = (msAgo: number) => `t=${((Date.now() - msAgo) / 1000).toFixed(3)}`;

describe('arrivalTime (a proxy stamp to performance.now() time)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('puts a stamp 250 ms old 250 ms before now, in seconds, ms or µs', () => {
    const wall = 1_800_000_000_000;
    for (const header of [`t=${(wall - 250) / 1000}`, `${wall - 250}`, `t=${(wall - 250) * 1000}`]) expect(arrivalTime(header, 5_000, wall)).toBeCloseTo(4_750, 6);
  });

  it('ignores a stamp from the future, an hour old or unreadable', () => {
    const wall = 1_800_000_000_000;
    for (const header of [`t=${(wall + 60_000) / 1000}`, `t=${(wall - 3_600_000) / 1000}`, 't=soon', undefined]) expect(arrivalTime(header, 5_000, wall)).toBe(5_000);
  });

  it("still reads a stamp's age after a suspend stopped the monotonic clock (the wall clock went on)", () => {
    const realNow = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => realNow() - 15_000);
    const now = performance.now();
    const at = arrivalTime(stamp(250), now);
    // 250 ms before now, within the stamp's ms rounding and the reads' own gap.
    expect(now - at).toBeGreaterThan(240);
    expect(now - at).toBeLessThan(300);
  });
});
