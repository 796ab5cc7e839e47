import { describe, expect, it } from 'vitest';
import { littlesLaw, littlesLawWarning } from '../src/littles-law.ts';
import { point } from './fixtures/curve.ts';

describe("Little's law check", () => {
  it('passes a level whose QPS × p50 equals the configured concurrency', () => {
    const [c] = littlesLaw([point({ level: 16, qps: 100, p50: 160 })]);
    expect(c).toEqual({ level: 16, in_flight: 16, ratio: 1, source: 'p50', generator_limited: false });
  });

  it('flags a level more than 10% short, but not one 9% short', () => {
    const checks = littlesLaw([point({ level: 100, qps: 1000, p50: 89 }), point({ level: 100, qps: 1000, p50: 91 })]);
    expect(checks.map((c) => c.generator_limited)).toEqual([true, false]);
  });

  it('prefers a measured in-flight count, then the mean, over p50', () => {
    const measured = littlesLaw([point({ level: 10, qps: 100, p50: 50, mean_ms: 100, in_flight: 9.5 })]);
    expect(measured[0]?.source).toBe('in_flight');
    expect(measured[0]?.in_flight).toBe(9.5);
    // p50 alone says 5 in flight (flagged); the mean says 10 (fine): the mean wins.
    const mean = littlesLaw([point({ level: 10, qps: 100, p50: 50, mean_ms: 100 })]);
    expect(mean[0]).toMatchObject({ source: 'mean', in_flight: 10, generator_limited: false });
  });

  it('skips levels with no latency at all', () => {
    expect(littlesLaw([point({ level: 10, qps: 100 })])).toEqual([]);
  });

  it('names the flagged levels and the proxy in one warning', () => {
    const checks = littlesLaw([point({ level: 50, qps: 99400, p50: 0.25 }), point({ level: 200, qps: 98300, p50: 0.25 })]);
    expect(littlesLawWarning(checks, 'workers')).toBe(
      "Possibly generator-limited at workers 50 (24.9 in flight), 200 (24.6 in flight): by Little's law, " +
        'QPS × p50 (standing in for the mean latency) falls more than 10% short of the configured level, ' +
        'so the load generator, not the server, may be the ceiling there.',
    );
    expect(littlesLawWarning([], 'workers')).toBeNull();
  });
});

describe('agentHealthWarning', () => {
  it('names the levels the agent itself flagged, with its reason', async () => {
    const { agentHealthWarning } = await import('../src/agent-health.ts');
    const health = (limited: boolean) => ({ target: 16, in_flight_mean: limited ? 9 : 16, late_sends: 0, missed_sends: 0, agent_cpu_cores: 1, event_loop_delay_p99_ms: 40, generator_limited: limited, reason: limited ? 'held 9 of 16 in flight' : null });
    const text = agentHealthWarning([{ level: 8, health: health(false) }, { level: 16, health: health(true) }, { level: 32, health: null }], 'concurrency');
    expect(text).toMatch(/^Generator-limited at concurrency 16: .*held 9 of 16 in flight/);
    expect(agentHealthWarning([{ level: 8, health: health(false) }], 'concurrency')).toBeNull();
  });
});
