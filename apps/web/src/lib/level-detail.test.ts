import { describe, expect, it } from 'vitest';
import { histogramRows, nines, NINES_TICKS, parseLevelParam, spectrumRows, timelineData, withLevelParam } from './level-detail.ts';

describe('level detail preparation', () => {
  it('puts percentiles on a nines axis with p90, p99, p99.9 and p99.99 as ticks', () => {
    expect(nines(0)).toBe(0);
    expect(nines(90)).toBeCloseTo(1, 9);
    expect(nines(99.99)).toBeCloseTo(4, 6);
    expect(NINES_TICKS.map((t) => t.label)).toEqual(['p0', 'p90', 'p99', 'p99.9', 'p99.99']);
    expect(spectrumRows({ spectrum: [{ p: 50, ms: 3 }, { p: 99, ms: null }] })).toEqual([
      { x: nines(50), p: 50, ms: 3 },
      { x: nines(99), p: 99, ms: null },
    ]);
  });

  it('labels histogram buckets and marks the warm-up range of the timeline', () => {
    expect(histogramRows({ histogram: [{ lo_ms: 1, hi_ms: 1.5, count: 4 }] })).toEqual([{ label: '1–1.5', lo: 1, hi: 1.5, count: 4 }]);
    const t = timelineData({
      started_at: 1_000,
      measure_from: 3_000,
      timeline: [
        { t_s: 0, duration_ms: 1000, requests: 1, ok: 1, qps: 1, p50_ms: 5, p99_ms: 6, measured: false },
        { t_s: 1, duration_ms: 1000, requests: 1, ok: 1, qps: 1, p50_ms: 5, p99_ms: 6, measured: false },
        { t_s: 2, duration_ms: 500, requests: 0, ok: 0, qps: 0, p50_ms: null, p99_ms: null, measured: true },
      ],
    });
    expect(t.warmup).toEqual([0, 2]);
    expect(t.domain).toEqual([0, 2.5]);
    expect(t.rows.map((r) => r.t)).toEqual([0.5, 1.5, 2.25]);
    expect(t.rows[2]).toMatchObject({ p50: null, measured: true });
  });

  it('reads and writes ?level=', () => {
    expect(parseLevelParam({ level: '8' })).toBe(8);
    expect(parseLevelParam({ level: '0.5' })).toBe(0.5);
    expect(parseLevelParam({ level: 'x' })).toBeNull();
    expect(parseLevelParam({ level: '-2' })).toBeNull();
    expect(parseLevelParam({})).toBeNull();
    expect(withLevelParam('/runs/a', 8)).toBe('/runs/a?level=8');
    expect(withLevelParam('/runs/a?x=log', 8)).toBe('/runs/a?x=log&level=8');
    expect(withLevelParam('/runs/a', null)).toBe('/runs/a');
  });
});
