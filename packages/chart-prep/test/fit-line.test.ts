import { describe, expect, it } from 'vitest';
import { fitLine } from '../src/fit-line.ts';

describe('fitLine', () => {
  const curve = [
    { level: 4, qps: 70 },
    { level: 1, qps: 24 },
    { level: 1.414, qps: 33 },
    { level: 0, qps: 0 },
    { level: 2.5, qps: Number.NaN },
  ];

  it('keeps fitted points at their own (unswept) levels, sorted', () => {
    expect(fitLine(curve, 'linear', [0, 10], [0, 10]).map((p) => p.level)).toEqual([0, 1, 1.414, 4]);
  });

  it('drops what a log axis cannot place and what lies outside the domain', () => {
    expect(fitLine(curve, 'log', [0.5, 10], [0.5, 10]).map((p) => p.level)).toEqual([1, 1.414, 4]);
    expect(fitLine(curve, 'linear', [1, 3], [1, 3]).map((p) => p.level)).toEqual([1, 1.414]);
  });

  it('stops at the first and last shown level, not at the padded axis ends', () => {
    // A zoom to levels 1–2 on an axis padded to 0.8–2.5: the fit ends at 1 and 2, not in the padding.
    const fit = [0.9, 1, 1.5, 2, 2.2].map((level) => ({ level, qps: level * 10 }));
    expect(fitLine(fit, 'log', [1, 2], [0.8, 2.5]).map((p) => p.level)).toEqual([1, 1.5, 2]);
    // A computed end level a rounding error past the last shown one still counts as on it.
    expect(fitLine([{ level: 2 * (1 + 1e-12), qps: 1 }], 'linear', [1, 2], [0, 3])).toHaveLength(1);
  });

  it('is empty when no level is shown', () => {
    expect(fitLine(curve, 'linear', [], [0, 10])).toEqual([]);
  });
});
