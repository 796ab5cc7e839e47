import { describe, expect, it } from 'vitest';
import type { StepHealth } from '@kneeboard/contracts';
import { combineHealth, splitLoad } from '../src/services/fleet-split.ts';

const health = (over: Partial<StepHealth> = {}): StepHealth => ({
  target: 10,
  in_flight_mean: 9.9,
  late_sends: 1,
  missed_sends: 0,
  agent_cpu_cores: 0.3,
  event_loop_delay_p99_ms: 2,
  generator_limited: false,
  reason: null,
  ...over,
});

describe('splitLoad', () => {
  it('splits concurrency in whole connections that add up to the total', () => {
    for (const [load, n] of [[30, 3], [31, 3], [32, 3], [7, 4], [1000, 7]] as const) {
      const agents = Array.from({ length: n }, (_, i) => `a${i}`);
      const shares = [...splitLoad(load, agents, 'closed').values()];
      expect(shares.reduce((a, b) => a + b, 0)).toBe(load);
      expect(shares.every(Number.isInteger)).toBe(true);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
  });

  it('leaves an agent out of a step whose concurrency is below the number of agents', () => {
    const shares = splitLoad(2, ['a', 'b', 'c'], 'closed');
    expect([...shares.entries()]).toEqual([['a', 1], ['b', 1]]);
  });

  it('splits a rate evenly', () => {
    const shares = [...splitLoad(100, ['a', 'b', 'c'], 'open').values()];
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(100, 9);
    expect(shares[0]).toBeCloseTo(100 / 3, 9);
  });
});

describe('combineHealth', () => {
  it('sums what adds up and keeps a clean step unflagged', () => {
    const { health: h, partial } = combineHealth(30, ['a', 'b', 'c'].map((id) => ({ agent_id: id, load: 10, outcome: 'ok' as const, note: null, health: health() })));
    expect(partial).toBe(false);
    expect(h.generator_limited).toBe(false);
    expect(h.target).toBe(30);
    expect(h.in_flight_mean).toBeCloseTo(29.7, 9);
    expect(h.late_sends).toBe(3);
    expect(h.agent_cpu_cores).toBeCloseTo(0.9, 9);
  });

  it('flags a step an agent died in as partial, naming the agent and its missing share', () => {
    const { health: h, partial } = combineHealth(30, [
      { agent_id: 'a', load: 10, outcome: 'ok', note: null, health: health() },
      { agent_id: 'b', load: 10, outcome: 'lost', note: 'no heartbeat for 2.0 s', health: null },
    ]);
    expect(partial).toBe(true);
    expect(h.generator_limited).toBe(true);
    expect(h.reason).toBe('partial step: b (no heartbeat for 2.0 s, share 10) of 30');
    expect(h.in_flight_mean).toBeNull();
  });

  it("carries one agent's generator-limited flag to the whole step, with its reason", () => {
    const { health: h, partial } = combineHealth(20, [
      { agent_id: 'a', load: 10, outcome: 'ok', note: null, health: health({ generator_limited: true, reason: 'only 4 of 10 in flight' }) },
      { agent_id: 'b', load: 10, outcome: 'ok', note: null, health: health() },
    ]);
    expect(partial).toBe(false);
    expect(h.generator_limited).toBe(true);
    expect(h.reason).toBe('agent a: only 4 of 10 in flight');
  });
});
