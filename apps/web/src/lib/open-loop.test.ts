import { describe, expect, it } from 'vitest';
import { achievedCell, levelAxisLabel, offeredLine } from './open-loop.ts';
import { minEffectOptions, formatMinEffect } from './view-state.ts';

describe('open loop', () => {
  it('labels the level axis as the offered rate', () => {
    expect(levelAxisLabel('concurrency', 'closed')).toBe('concurrency');
    expect(levelAxisLabel('concurrency', 'open')).toBe('offered rate (req/s)');
    expect(levelAxisLabel('rate', 'open')).toBe('offered rate (req/s)');
    expect(levelAxisLabel('arrivals', 'open')).toBe('offered arrivals (req/s)');
  });

  it('draws y = x over the axis: two ends on linear, sampled on log', () => {
    expect(offeredLine([100, 1600], 'linear')).toEqual([
      { level: 100, qps: 100 },
      { level: 1600, qps: 1600 },
    ]);
    const log = offeredLine([100, 1600], 'log', 5);
    expect(log).toHaveLength(5);
    expect(log[0]).toEqual({ level: 100, qps: 100 });
    expect(log[4]).toEqual({ level: 1600, qps: 1600 });
    expect(log[2]!.level).toBeCloseTo(400);
    expect(log.every((p) => p.level === p.qps)).toBe(true);
    expect(offeredLine([5, 5], 'linear')).toEqual([]);
  });

  it('gives achieved ÷ offered and flags saturation', () => {
    expect(achievedCell({ level: 200, qps: 199, in_progress: false })).toMatchObject({ text: '100%', saturated: false });
    const sat = achievedCell({ level: 1600, qps: 800, in_progress: false });
    expect(sat).toMatchObject({ ratio: 0.5, text: '50%', barPct: 50, saturated: true });
    expect(sat?.title).toMatch(/saturated/);
    expect(achievedCell({ level: 200, qps: 150, in_progress: true })).toBeNull();
    expect(achievedCell({ level: 0, qps: 0, in_progress: false })).toBeNull();
  });
});

describe('min_effect control', () => {
  it('offers the standard choices, plus the URL value when it is another', () => {
    expect(minEffectOptions(0.05).map((o) => o.label)).toEqual(['1%', '2%', '5%', '10%', '20%']);
    expect(minEffectOptions(0.07).map((o) => o.label)).toEqual(['1%', '2%', '5%', '7%', '10%', '20%']);
    expect(formatMinEffect(0.025)).toBe('2.5%');
  });
});
