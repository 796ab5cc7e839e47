import { describe, expect, it } from 'vitest';
import { curveTableRows, efficiencyCell } from './curve-table.ts';
import { analysisOf } from './test-analysis.ts';
import { point } from './test-runs.ts';

describe('efficiencyCell', () => {
  it('prints X(N) ÷ (N·X(1)) as a percentage with a bar capped at the cell', () => {
    expect(efficiencyCell(0.625)).toEqual({ ratio: 0.625, text: '63%', barPct: 62.5, superlinear: false });
    expect(efficiencyCell(1.2)).toMatchObject({ text: '120%', barPct: 100, superlinear: true });
    expect(efficiencyCell(1)).toMatchObject({ superlinear: false });
    expect(efficiencyCell(null)).toBeNull();
    expect(efficiencyCell(Number.NaN)).toBeNull();
  });
});

describe('curveTableRows', () => {
  // By Little's law: 10 req/s × 100 ms = 1 in flight at 1; 200 req/s × 99.3 ms = 19.86 at 32, 62% of it.
  const curve = [point(1, { qps: 10, mean_ms: 100 }), point(32, { qps: 200, mean_ms: 99.3 })];
  const a = analysisOf(curve);

  it('attaches efficiency and the Little\'s-law check to their levels, flagging generator-limited ones', () => {
    const rows = curveTableRows([...curve].reverse(), a, 'concurrency');
    expect(rows.map((r) => r.point.level)).toEqual([1, 32]);
    expect(rows[0]?.efficiency?.text).toBe('100%');
    expect(rows[0]?.inFlight).toMatchObject({ text: '1.0', generatorLimited: false });
    expect(rows[1]?.inFlight).toMatchObject({ text: '19.9', ratioText: '62%', generatorLimited: true });
    expect(rows[1]?.inFlight?.title).toContain('QPS × mean latency');
    expect(rows[1]?.inFlight?.title).toContain('load generator');
    expect(rows[0]?.inFlight?.title).not.toContain('load generator');
  });

  it('leaves levels the analysis skipped (in progress, or not in its answer) empty', () => {
    const rows = curveTableRows([curve[0]!, { ...curve[1]!, in_progress: true }], a, 'concurrency');
    expect(rows[1]?.efficiency).toBeNull();
    expect(rows[1]?.inFlight).toBeNull();
    expect(curveTableRows([point(1)], analysisOf([]), 'concurrency')[0]).toMatchObject({ efficiency: null, inFlight: null });
  });

  it("flags a step the agent itself reported generator-limited, with its reason, also in open loop", () => {
    const health = (limited: boolean) => ({
      target: 400,
      in_flight_mean: 12.5,
      late_sends: limited ? 900 : 0,
      missed_sends: 0,
      agent_cpu_cores: 1,
      event_loop_delay_p99_ms: 80,
      generator_limited: limited,
      reason: limited ? 'Sends fell 18% behind the offered rate.' : null,
    });
    const curve = [point(200, { health: health(false) }), point(400, { health: health(true) })];
    const rows = curveTableRows(curve, analysisOf(curve, { load_model: 'open', parameter: 'rate' }), 'rate');
    expect(rows[0]?.inFlight).toMatchObject({ text: '12.5', generatorLimited: false });
    expect(rows[1]?.inFlight?.generatorLimited).toBe(true);
    expect(rows[1]?.inFlight?.title).toContain('Sends fell 18% behind the offered rate.');
    const closed = curveTableRows([point(1, { health: { ...health(true), target: 1 } })], a, 'concurrency');
    expect(closed[0]?.inFlight).toMatchObject({ text: '1.0', generatorLimited: true });
  });
});
