import { describe, expect, it } from 'vitest';
import { analyzeCurve, bracketIsCoarse, kneeBracket, kneesWithinGrid, levelsInside } from '../src/index.ts';
import { demoTarget } from './fixtures/synthetic.ts';

describe('the knee with its resolution', () => {
  it('brackets a grid knee by the level below it, a fitted knee by the grid points around it, and nothing at the grid start', () => {
    expect(kneeBracket([1, 2, 4, 8, 16], 16)).toEqual({ low: 8, high: 16 });
    expect(kneeBracket([16, 1, 8, 4, 2], 11.3)).toEqual({ low: 8, high: 16 });
    expect(kneeBracket([1, 2, 4], 1)).toBeNull();
    expect(bracketIsCoarse({ low: 8, high: 16 })).toBe(true);
    expect(bracketIsCoarse({ low: 8, high: 9 })).toBe(false);
  });

  it('reads two knees inside each other’s bracket as the same within the grid, and two brackets apart as moved', () => {
    expect(kneesWithinGrid({ level: 16, bracket: { low: 8, high: 16 } }, { level: 12, bracket: { low: 8, high: 12 } })).toBe(true);
    expect(kneesWithinGrid({ level: 8, bracket: { low: 4, high: 8 } }, { level: 32, bracket: { low: 16, high: 32 } })).toBe(false);
  });

  it('proposes whole-number levels strictly inside a bracket, evenly on a log scale', () => {
    expect(levelsInside({ low: 8, high: 16 })).toEqual([10, 11, 13]);
    expect(levelsInside({ low: 1, high: 2 })).toEqual([]);
    expect(levelsInside({ low: 100, high: 400 }, 3, false)).toEqual([141, 200, 283]);
  });

  it('a refined grid narrows the knee of a 12-worker server from (8, 16] to within a level or two of 12', () => {
    const coarse = analyzeCurve({ parameter: 'concurrency', load_model: 'closed', curve: demoTarget(12, 20, [1, 2, 4, 8, 16, 32]) });
    expect(coarse.knee?.bracket).toEqual({ low: 8, high: 16 });
    const fine = analyzeCurve({ parameter: 'concurrency', load_model: 'closed', curve: demoTarget(12, 20, [1, 2, 4, 8, 10, 11, 13, 16, 32]) });
    expect(fine.knee!.bracket!.high - fine.knee!.bracket!.low).toBeLessThanOrEqual(2);
    expect(fine.knee!.level).toBeGreaterThanOrEqual(11);
    expect(fine.knee!.level).toBeLessThanOrEqual(13);
  });
});
