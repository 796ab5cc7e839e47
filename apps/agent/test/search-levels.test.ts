import { describe, expect, it } from 'vitest';
import { poolObservations, type SearchObservation } from '@kneeboard/analysis';
import { searchLevels } from '../src/sweep/search-levels.ts';

/** A W×S closed loop judged on p99 ≤ k·S (capacity c* = k·W), the way the API would judge it on a quiet box. */
const judgeAt = (W: number, k: number) => (level: number): SearchObservation => {
  const margin = Math.max(1, level / W) / k;
  return { level, judgement: margin <= 1 ? 'holds' : 'breaks', qps: Math.min(level, W) * 50, margin };
};
const cfg = { levels: [1], loadModel: 'closed' as const, hold: undefined, precision: 0.05, maxOver: 1 };

describe('searchLevels', () => {
  it('runs the levels the planner asks for, judges each in every repeat, and stops with the answer', async () => {
    const ran: number[] = [];
    const judge = judgeAt(8, 2.6);
    const result = await searchLevels(cfg, async (level) => void ran.push(level), async (level) => poolObservations([judge(level), judge(level)]), () => false);
    expect(result.answer.capacity?.level).toBe(20);
    expect(result.answer.bracket.breaks?.level).toBe(21);
    // One observation per level run, both repeats pooled in it.
    expect(result.observations).toHaveLength(ran.length);
    // Nothing at or above the first level that broke (c* = 20.8), but that level itself.
    const firstBreak = ran.find((l) => l > 20.8) as number;
    expect(ran.filter((l) => l >= firstBreak)).toEqual([firstBreak]);
  });

  it('a break in any repeat is a break', async () => {
    const judge = judgeAt(8, 2.6);
    // The second repeat breaks from 16 up: the answer must stay below 16.
    const result = await searchLevels(cfg, async () => undefined, async (level) => poolObservations([judge(level), level >= 16 ? { ...judge(level), judgement: 'breaks' } : judge(level)]), () => false);
    expect(result.answer.capacity!.level).toBeLessThan(16);
  });

  it('a level unclear in all three repeats is run again: the repeats of one run count once', async () => {
    const ran: number[] = [];
    const judge = judgeAt(8, 2.6);
    let unclearOnce = true;
    const result = await searchLevels(
      cfg,
      async (level) => void ran.push(level),
      async (level) => {
        const runs = [judge(level), judge(level), judge(level)];
        if (level !== 4 || !unclearOnce) return poolObservations(runs);
        unclearOnce = false;
        return poolObservations(runs.map((r) => ({ ...r, judgement: 'unclear' as const })));
      },
      () => false,
    );
    expect(ran.filter((l) => l === 4)).toHaveLength(2);
    expect(result.answer.unclear).toEqual([]);
    expect(result.answer.capacity?.level).toBe(20);
  });

  it('answers with what it has when the sweep is stopped', async () => {
    let runs = 0;
    const result = await searchLevels(cfg, async () => void runs++, async (level) => judgeAt(8, 2.6)(level), () => runs >= 3);
    expect(runs).toBe(3);
    expect(result.answer.done).toBe(true);
    expect(result.observations.map((o) => o.level)).toEqual([1, 2]);
    expect(result.answer.capacity?.level).toBe(2);
  });
});
