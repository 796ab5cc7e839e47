import { describe, expect, it } from 'vitest';
import { kneedle } from '../src/kneedle.ts';
import * as kneed from './fixtures/kneed.ts';

/** The knees kneed's own test-suite asserts for the same curves (tests/test_sample.py). */
describe('Kneedle against the kneed reference tests', () => {
  it('finds the knee of the paper’s figure 2 at x ≈ 0.22 (y ≈ 1.897, normalised y ≈ 0.758)', () => {
    const r = kneedle(kneed.figure2.x, kneed.figure2.y, { S: 1, curve: 'concave' });
    expect(r.knee).not.toBeNull();
    expect(Math.abs((r.knee ?? 0) - 0.22) / 0.22).toBeLessThan(0.05);
    expect(Math.abs((r.kneeY ?? 0) - 1.897) / 1.897).toBeLessThan(0.03);
    expect(Math.abs((r.normKneeY ?? 0) - 0.758) / 0.758).toBeLessThan(0.03);
  });

  it.each([
    ['concave', 'increasing', kneed.concaveIncreasing, 2],
    ['concave', 'decreasing', kneed.concaveDecreasing, 7],
    ['convex', 'increasing', kneed.convexIncreasing, 7],
    ['convex', 'decreasing', kneed.convexDecreasing, 2],
  ] as const)('%s %s curve → knee %d', (curve, direction, data, expected) => {
    expect(kneedle(data.x, data.y, { curve, direction }).knee).toBe(expected);
  });

  it.each([
    ['concave', 'increasing', kneed.concaveIncreasing, 0.2],
    ['concave', 'decreasing', kneed.concaveDecreasing, 0.4],
    ['convex', 'increasing', kneed.convexIncreasing, 0.4],
    ['convex', 'decreasing', kneed.convexDecreasing, 0.2],
  ] as const)('truncated %s %s curve (first 7 points ÷ 10) → knee %s', (curve, direction, data, expected) => {
    const x = data.x.slice(0, -3).map((v) => v / 10);
    const y = data.y.slice(0, -3).map((v) => v / 10);
    expect(kneedle(x, y, { curve, direction }).knee).toBeCloseTo(expected, 12);
  });

  it('bumpy convex decreasing curve → knee 26', () => {
    expect(kneedle(kneed.bumpy.x, kneed.bumpy.y, { curve: 'convex', direction: 'decreasing' }).knee).toBe(26);
  });

  it('flat maxima: S = 0 takes the first local maximum (1), S = 1 the global one (8)', () => {
    const { x, y } = kneed.flatMaxima;
    expect(kneedle(x, y, { curve: 'convex', direction: 'decreasing', S: 0 }).knee).toBe(1);
    expect(kneedle(x, y, { curve: 'convex', direction: 'decreasing', S: 1 }).knee).toBe(8);
  });

  it('online detection on a sine reproduces kneed’s knees 4.5, 4.9, 7.7, 1.8', () => {
    const { x, y } = kneed.sine;
    const combos = [
      ['decreasing', 'convex'],
      ['increasing', 'convex'],
      ['increasing', 'concave'],
      ['decreasing', 'concave'],
    ] as const;
    const knees = combos.map(([direction, curve]) => kneedle(x, y, { direction, curve, S: 1, online: true }).knee);
    [4.5, 4.9, 7.7, 1.8].forEach((expected, i) => expect(knees[i]).toBeCloseTo(expected, 5));
  });

  it('reports no knee where kneed reports none (three points on a gentle convex decay)', () => {
    const r = kneedle([1, 2, 3], [0.90483742, 0.81873075, 0.74081822], { curve: 'convex', direction: 'decreasing' });
    expect(r.knee).toBeNull();
    expect(r.kneeY).toBeNull();
  });

  it('reports no knee on a constant or a straight line', () => {
    const x = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    expect(kneedle(x, x.map(() => 1)).knee).toBeNull();
    expect(kneedle(x, x.map((v) => 3 * v + 1)).knee).toBeNull();
  });
});
