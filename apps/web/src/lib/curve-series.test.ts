import { describe, expect, it } from 'vitest';
import { inProgressLevel, latencyData, normalizeCurve, peakQps, qpsData, splitData } from './curve-series.ts';
import { analysisOf } from './test-analysis.ts';
import { point, seedCurve } from './test-runs.ts';

describe('normalizeCurve', () => {
  it('sorts by level and keeps the last point of a repeated level', () => {
    const out = normalizeCurve([point(4), point(1), point(2), point(4, { qps: 1 })]);
    expect(out.map((p) => p.level)).toEqual([1, 2, 4]);
    expect(out[2]?.qps).toBe(1);
  });
});

describe('qpsData', () => {
  it('has one row per level and keeps a measured QPS of 0', () => {
    const curve = [point(2), point(1, { qps: 0, errors: 100 })];
    const { rows, yAxis } = qpsData(curve, analysisOf(curve));
    expect(yAxis.domain).toEqual([0, 20]);
    expect(rows.map((r) => [r.level, r.qps])).toEqual([
      [1, 0],
      [2, 20],
    ]);
    expect(rows[0]?.errors).toBe(100);
  });

  it('carries the analysis’ fitted throughput and efficiency per level, and widens the y axis for a drawn fit', () => {
    // Seed 001 with its last level still being measured: the fitted QPS is the analysis' own, also there.
    const curve = seedCurve().map((p) => (p.level === 32 ? { ...p, in_progress: true } : p));
    const a = analysisOf(curve);
    const shown = qpsData(curve, a, { showFit: true });
    expect(shown.rows.map((r) => r.fitted)).toEqual(a.usl_fitted.map((u) => u.qps));
    expect(shown.rows.find((r) => r.level === 32)?.fitted).not.toBeNull();
    expect(shown.rows.map((r) => r.efficiency)).toEqual([...a.efficiency.map((e) => e.efficiency), null]);
  });

  it('widens the y axis for a drawn fit whose peak lies between the levels swept', () => {
    // X(N) = 10N / (1 + 0.01N(N−1)): it peaks at N* = 10 (52.6 req/s), where nothing was measured.
    const curve = [1, 2, 32, 64].map((level) => point(level, { qps: (10 * level) / (1 + 0.01 * level * (level - 1)) }));
    const a = analysisOf(curve);
    const topOfFit = Math.max(...a.usl_curve.map((u) => u.qps));
    expect(topOfFit).toBeGreaterThan(50);
    expect(qpsData(curve, a, { showFit: true }).yAxis.domain[1]).toBeGreaterThanOrEqual(topOfFit);
    expect(qpsData(curve, a, { showFit: false }).yAxis.domain[1]).toBeLessThan(topOfFit);
  });

  it('has no fitted throughput where the analysis has no fit', () => {
    const curve = [point(1), point(2)];
    expect(qpsData(curve, analysisOf(curve)).rows.map((r) => r.fitted)).toEqual([null, null]);
  });

  it('marks the level still being measured', () => {
    const curve = [point(1), point(2, { in_progress: true })];
    const { rows } = qpsData(curve, analysisOf(curve));
    expect(rows.map((r) => r.inProgress)).toEqual([false, true]);
  });
});

describe('latencyData', () => {
  it('keeps a missing percentile as null on a linear axis (a gap, not a zero)', () => {
    const { rows, yAxis } = latencyData([point(1), point(2, { p50_ms: null, p99_ms: null })], ['p50_ms', 'p99_ms'], 'linear');
    expect(rows[1]?.p50_ms).toBeNull();
    expect(rows[1]?.p99_ms).toBeNull();
    expect(yAxis).toEqual({ domain: [0, 20], ticks: [0, 5, 10, 15, 20] }); // bounded by p99 at level 1
  });

  it('turns values a log axis cannot draw into gaps, counts them, and bounds the axis by the rest', () => {
    const data = latencyData([point(1, { p50_ms: 0 }), point(2), point(4, { p99_ms: null })], ['p50_ms', 'p99_ms'], 'log');
    expect(data.rows[0]?.p50_ms).toBeNull();
    expect(data.droppedOnLog).toBe(1); // the 0, not the null
    expect(data.yAxis?.domain[0]).toBeGreaterThan(0);
    expect(data.yAxis?.domain[0]).toBeLessThanOrEqual(20);
    expect(data.yAxis?.domain[1]).toBeGreaterThanOrEqual(40);
    for (const r of data.rows) for (const k of ['p50_ms', 'p99_ms'] as const) expect(r[k] === null || r[k] > 0).toBe(true);
  });

  it('only lets visible series shape the log axis', () => {
    const data = latencyData([point(1), point(2)], ['p50_ms'], 'log');
    expect(data.yAxis?.domain).toEqual([10, 20]);
    // Hidden series are not touched (they are not drawn).
    expect(data.rows[0]?.p999_ms).toBe(30);
  });

  it('has no log axis when nothing is drawable', () => {
    const data = latencyData([point(1, { p50_ms: null })], ['p50_ms'], 'log');
    expect(data.yAxis).toBeNull();
  });
});

describe('splitData', () => {
  it('stacks compute, queue and other p50, keeping the measured values for the tooltip', () => {
    const { rows, hasServerTiming, yAxis } = splitData([point(1, { other_p50_ms: -0.05 })]);
    expect(hasServerTiming).toBe(true);
    expect(yAxis.domain).toEqual([0, 10]); // 8 + 1.5 + 0
    expect(rows[0]).toMatchObject({ compute: 8, queue: 1.5, other: 0 });
    expect(rows[0]?.raw.other).toBe(-0.05);
  });

  it('leaves unknown components out and says when the target sends no Server-Timing', () => {
    const { rows, hasServerTiming } = splitData([point(1, { compute_p50_ms: null, queue_p50_ms: null, other_p50_ms: null })]);
    expect(hasServerTiming).toBe(false);
    expect(rows[0]).toMatchObject({ compute: null, queue: null, other: null });
  });
});

describe('summaries', () => {
  it('finds the level in progress and the peak over completed levels', () => {
    const curve = [point(1), point(8, { qps: 100 }), point(16, { qps: 99 }), point(32, { qps: 500, in_progress: true })];
    expect(inProgressLevel(curve)).toBe(32);
    expect(peakQps(curve)).toEqual({ level: 8, qps: 100 });
    expect(peakQps([point(1, { in_progress: true })])).toEqual({ level: 1, qps: 10 });
    expect(peakQps([])).toBeNull();
    expect(inProgressLevel([point(1)])).toBeNull();
  });
});
