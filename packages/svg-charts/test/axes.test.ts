import { describe, expect, it } from 'vitest';
import { embedLevelScale, embedValueAxis } from '../src/axes.ts';

describe('embedLevelScale', () => {
  it('spaces a geometric sweep evenly (log₂) and a narrow one linearly', () => {
    const log = embedLevelScale([1, 2, 4, 8, 16, 32], [0, 500]);
    expect(log(2) - log(1)).toBeCloseTo(log(32) - log(16), 6);
    const lin = embedLevelScale([10, 20, 30], [0, 100]);
    expect(lin(20) - lin(10)).toBeCloseTo(lin(30) - lin(20), 6);
  });

  it('decides log or linear by the same span rule as the page (defaultXScale)', () => {
    expect(embedLevelScale([1, 2, 4, 8], [0, 100])(1)).toBe(0); // 8× is not more than 8×: linear, nice from 0
    const wide = embedLevelScale([1, 16], [0, 100]);
    expect(wide(4)).toBeCloseTo(50, 6);
  });
});

describe('embedValueAxis', () => {
  it('runs a linear axis from 0 past the top value, on round ticks', () => {
    const { scale, ticks } = embedValueAxis([20, 112], false, [100, 0]);
    expect(scale.domain()).toEqual([0, 120]);
    expect(ticks).toEqual([0, 20, 40, 60, 80, 100, 120]);
  });

  it('puts a log axis on whole decades with gridlines only on 1-2-5 values', () => {
    const { scale, ticks } = embedValueAxis([3, 400], true, [100, 0]);
    // The floor is 0.8 × min(lowest, 1), so the axis reaches below 1 ms; gridlines start at 1.
    expect(scale.domain()).toEqual([0.1, 1000]);
    expect(ticks).toEqual([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]);
  });
});
