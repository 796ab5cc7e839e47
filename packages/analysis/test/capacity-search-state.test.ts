import { describe, expect, it } from 'vitest';
import type { Capacity, CapacityLevel, StepWindow } from '@kneeboard/contracts';
import { capacitySearchState, poolObservations, type SearchObservation } from '../src/index.ts';

const SLO = { metric: 'p50', max_ms: 100 } as const;
const settings = { slo: 'p50<=100ms', precision: 0.05, maxOver: 1 };
/** A W = 4 × 40 ms closed loop judged on p50 ≤ 100 ms: p50 = 40·max(1, c/4), holds up to 10. */
const level = (c: number): CapacityLevel => {
  const p50 = 40 * Math.max(1, c / 4);
  const judgement = p50 <= 100 ? 'holds' : 'breaks';
  return { level: c, qps: (Math.min(c, 4) * 1000) / 40, judgement, skipped_reason: null, checks: [{ slo: 'p50<=100ms', value: p50, low: p50, high: p50, basis: 'point', judgement }] };
};
const capacityOf = (levels: number[]): Capacity => ({
  slos: ['p50<=100ms'],
  confidence: 0.95,
  samples: 'none',
  level: null,
  qps: null,
  bracket: { holds: null, breaks: null, crossing: null },
  unclear_levels: [],
  skipped_levels: [],
  levels: levels.map(level),
  summary: '',
  warnings: [],
});
/** Steps in the order given, a second apart; the last one still open when `running`. */
const stepsOf = (order: number[], running = false): StepWindow[] =>
  order.map((c, i) => ({ level: c, started_at: 1_000 + i * 1_000, measure_from: 1_100 + i * 1_000, ended_at: running && i === order.length - 1 ? null : 2_000 + i * 1_000 }));
const state = (order: number[], running = false) =>
  capacitySearchState({ steps: stepsOf(order, running), capacity: capacityOf(running ? order.slice(0, -1) : order), slos: [SLO], settings, loadModel: 'closed', integer: true });

describe('capacitySearchState: a --search run replayed from its steps', () => {
  it('mid-search: the levels tried in the order they ran, the best so far, and the level being measured', () => {
    const s = state([2, 4, 8, 16], true);
    expect(s.tried.map((t) => [t.level, t.judgement])).toEqual([
      [2, 'holds'],
      [4, 'holds'],
      [8, 'holds'],
    ]);
    expect(s.done).toBe(false);
    expect(s.next).toBe(16);
    expect(s.best?.level).toBe(8);
    expect(s.bracket).toEqual({ holds: { level: 8, qps: 100 }, breaks: null });
  });

  it('narrowing: the order is the steps\' (not the levels\'), the bound is named, the planner asks for the next level', () => {
    const s = state([2, 4, 8, 16]);
    expect(s.tried.map((t) => t.level)).toEqual([2, 4, 8, 16]);
    expect(s.tried.at(-1)).toMatchObject({ level: 16, judgement: 'breaks', bound: 'an SLO breaks' });
    expect(s.bracket.holds?.level).toBe(8);
    expect(s.bracket.breaks?.level).toBe(16);
    expect(s.done).toBe(false);
    expect(s.next).toBeGreaterThan(8);
    expect(s.next).toBeLessThan(16);
  });

  it('bracketed: done, with the answer and why it stopped', () => {
    const s = state([2, 4, 8, 16, 11, 10]);
    expect(s.tried.map((t) => t.level)).toEqual([2, 4, 8, 16, 11, 10]);
    expect(s.done).toBe(true);
    expect(s.next).toBeNull();
    expect(s.best?.level).toBe(10);
    expect(s.bracket.breaks?.level).toBe(11);
    expect(s.reason).toBe('bracketed: holds at 10, an SLO breaks at 11');
  });
});

describe('poolObservations: one measurement of a level in every repeat', () => {
  const obs = (judgement: SearchObservation['judgement'], qps: number, margin: number | null): SearchObservation => ({ level: 8, judgement, qps, margin });
  it('a break in any repeat is a break; the throughput is the mean of those measured; the margin the worst', () => {
    expect(poolObservations([obs('holds', 100, 0.8), obs('breaks', 90, 1.2), obs('skipped', 10, null)])).toEqual({ level: 8, judgement: 'breaks', qps: 95, margin: 1.2 });
  });
  it('holds when one held and none broke; unclear when none held; skipped only when every repeat was', () => {
    expect(poolObservations([obs('holds', 100, 0.8), obs('unclear', 100, 1)]).judgement).toBe('holds');
    expect(poolObservations([obs('unclear', 100, 1), obs('skipped', 10, null)]).judgement).toBe('unclear');
    expect(poolObservations([obs('skipped', 10, null), obs('skipped', 20, null)])).toEqual({ level: 8, judgement: 'skipped', qps: 15, margin: null });
  });
});
