import { describe, expect, it } from 'vitest';
import { createWallClock, wallClockMs } from '../src/wall-clock.ts';

/** A machine: a wall clock truncated to the ms, a monotonic clock that can stop (suspend). */
function machine(wall0 = 1_800_000_000_000) {
  let real = wall0 + 0.25;
  let mono = 1_000;
  return {
    clock: createWallClock(
      () => mono,
      () => Math.floor(real),
    ),
    run(ms: number) {
      real += ms;
      mono += ms;
    },
    suspend(ms: number) {
      real += ms;
    },
    setWall(ms: number) {
      real += ms;
    },
    get real() {
      return real;
    },
  };
}

describe('wallClockMs', () => {
  it('keeps sub-millisecond steps between reads while both clocks run together', () => {
    const m = machine();
    const a = m.clock();
    m.run(0.125);
    const b = m.clock();
    expect(b - a).toBeCloseTo(0.125, 9);
    for (let i = 0; i < 1000; i++) {
      m.run(0.37);
      expect(Math.abs(m.clock() - m.real)).toBeLessThan(1);
    }
  });

  it('follows the wall clock across a suspend the monotonic clock did not count', () => {
    const m = machine();
    m.clock();
    m.run(5_000);
    m.suspend(14_613);
    // Anchored at start-up, the old way, this read is 14.6 s early.
    expect(Math.abs(m.clock() - m.real)).toBeLessThan(1);
    m.run(2.5);
    expect(Math.abs(m.clock() - m.real)).toBeLessThan(1);
  });

  it('follows the wall clock when it is set back', () => {
    const m = machine();
    m.clock();
    m.setWall(-3_000);
    expect(Math.abs(m.clock() - m.real)).toBeLessThan(1);
  });

  it("reads this process's clock within a few ms of Date.now()", () => {
    const before = Date.now();
    const t = wallClockMs();
    const after = Date.now();
    expect(t).toBeGreaterThanOrEqual(before - 1);
    expect(t).toBeLessThanOrEqual(after + 2);
  });
});
