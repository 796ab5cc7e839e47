import { describe, expect, it } from 'vitest';
import { judgeStep, type HealthInput } from '../src/load/health.ts';
import { InFlightGauge } from '../src/load/in-flight-gauge.ts';
import { nextGapMs } from '../src/load/arrivals.ts';

const calm = { cpuCores: 0.1, eventLoopUtilization: 0.1, loopDelayP99Ms: 1 };
const closed = (over: Partial<HealthInput> = {}): HealthInput => ({
  loadModel: 'closed',
  target: 64,
  windowMs: 2_000,
  inFlightMean: 63.5,
  littlesInFlight: 63.9,
  meanLatencyMs: 20,
  thinkTimeMs: 0,
  maxConnections: 10_000,
  connections: 64,
  open: null,
  usage: calm,
  p50Ms: 20,
  ...over,
});
const open = (counts: { intended: number; sent: number; late: number; missed: number }, over: Partial<HealthInput> = {}): HealthInput =>
  closed({ loadModel: 'open', target: 1_000, open: counts, inFlightMean: 20, littlesInFlight: 20, ...over });

describe('judgeStep: was the configured load really applied?', () => {
  it('passes a healthy closed-loop step, and reports what it measured', () => {
    expect(judgeStep(closed(), 2)).toEqual({
      target: 64,
      in_flight_mean: 63.5,
      late_sends: 0,
      missed_sends: 0,
      agent_cpu_cores: 0.1,
      event_loop_delay_p99_ms: 1,
      generator_limited: false,
      reason: null,
    });
  });

  it('flags a closed loop whose requests on the wire fall >10% short, naming a connection cap', () => {
    const h = judgeStep(closed({ inFlightMean: 16, maxConnections: 16 }), 2);
    expect(h.generator_limited).toBe(true);
    expect(h.reason).toBe('Only 16.0 of 64 requests were on the wire on average — --max-connections 16 caps the connections.');
    expect(judgeStep(closed({ inFlightMean: 57.7 }), 2).generator_limited).toBe(false); // 90.2%
    // Connections that could not be opened in time are named as the cause.
    expect(judgeStep(closed({ inFlightMean: 30, connections: 31 }), 2).reason).toBe(
      'Only 30.0 of 64 requests were on the wire on average — only 31 connections were open: the target accepted them too slowly (or refused them).',
    );
  });

  it("flags a closed loop that Little's law finds short even when the direct count looks fine", () => {
    expect(judgeStep(closed({ littlesInFlight: 50 }), 2).reason).toMatch(/^By Little's law \(QPS × mean latency\) only 50.0 of 64/);
  });

  it('expects fewer in flight with think time: c·R/(R+Z)', () => {
    // R = 20 ms, Z = 20 ms: each worker has a request out half the time → 32 expected.
    expect(judgeStep(closed({ thinkTimeMs: 20, inFlightMean: 31, littlesInFlight: 31 }), 2).generator_limited).toBe(false);
    expect(judgeStep(closed({ thinkTimeMs: 20, inFlightMean: 20, littlesInFlight: 31 }), 2).generator_limited).toBe(true);
  });

  it('flags an open loop that missed sends, fell behind the rate, or sent late', () => {
    expect(judgeStep(open({ intended: 2_000, sent: 2_000, late: 10, missed: 0 }), 2).generator_limited).toBe(false);
    const missed = judgeStep(open({ intended: 2_000, sent: 1_900, late: 0, missed: 100 }, { maxConnections: 50 }), 2);
    expect(missed).toMatchObject({ generator_limited: true, missed_sends: 100 });
    expect(missed.reason).toMatch(/^100 of 2000 sends were never made: all 50 connections/);
    expect(judgeStep(open({ intended: 2_000, sent: 1_800, late: 0, missed: 0 }), 2).reason).toBe('Sent only 900 of the 1,000 requests/s due.');
    // Poisson arrivals: fewer due than rate × window is the schedule, not the agent falling behind.
    expect(judgeStep(open({ intended: 1_780, sent: 1_780, late: 0, missed: 0 }), 2).generator_limited).toBe(false);
    expect(judgeStep(open({ intended: 2_000, sent: 2_000, late: 400, missed: 0 }), 2).reason).toBe('20% of sends left more than 2 ms after their intended time.');
  });

  it('flags a saturated or lagging agent event loop whatever the loop', () => {
    const busy = judgeStep(closed({ usage: { cpuCores: 1.02, eventLoopUtilization: 0.97, loopDelayP99Ms: 5 } }), 2);
    expect(busy.reason).toBe("The agent's event loop was busy 97% of the time, so it — not the target — set the pace.");
    const lag = judgeStep(closed({ usage: { ...calm, loopDelayP99Ms: 45 } }), 2);
    expect(lag.reason).toBe("The agent's event loop lagged 45.0 ms (p99), so its send and receive times are off by that much.");
    // A lag that is small next to the latency measured is tolerated.
    expect(judgeStep(closed({ usage: { ...calm, loopDelayP99Ms: 45 }, p50Ms: 200 }), 2).generator_limited).toBe(false);
  });
});

describe('InFlightGauge', () => {
  it('integrates the count over time, exactly', () => {
    const g = new InFlightGauge();
    const a = g.mark(1_000_000);
    g.up(1_000_000);
    g.up(1_000_000);
    g.down(1_000_500);
    const b = g.mark(1_001_000);
    // 2 for 500 ms, then 1 for 500 ms → 1.5
    expect(InFlightGauge.mean(a, b)).toBe(1.5);
    expect(g.current).toBe(1);
  });
});

describe('nextGapMs', () => {
  it('spaces uniform sends exactly, and Poisson sends with the same mean', () => {
    expect(nextGapMs(200, 'uniform')).toBe(5);
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const gaps = Array.from({ length: 20_000 }, () => nextGapMs(200, 'poisson', random));
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    expect(mean).toBeGreaterThan(4.8);
    expect(mean).toBeLessThan(5.2);
    expect(Math.min(...gaps)).toBeLessThan(0.1); // exponential: many short gaps
  });
});
