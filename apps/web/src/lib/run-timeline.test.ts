import { describe, expect, it } from 'vitest';
import type { RunTimeline } from '@kneeboard/contracts';
import { bandAt, formatElapsed, prepareRunTimeline } from './run-timeline.ts';

const T0 = 1_800_000_000_000;
const point = (s: number, requests: number, ok: number, p50: number | null) => ({ t_ms: T0 + s * 1000, requests, ok, errors: requests - ok, rps: requests, p50_ms: p50, p99_ms: p50 === null ? null : p50 * 2 });

describe('prepareRunTimeline', () => {
  it('puts points and steps on one axis from the first of them, gaps kept as null', () => {
    const t: RunTimeline = {
      run_id: '7d0c6c1e-0000-4000-8000-000000000001',
      bucket_s: 1,
      points: [point(0, 10, 9, 4), point(1, 0, 0, null), point(2, 12, 12, 5)],
      steps: [
        { level: 8, started_at: T0 + 2000, measure_from: T0 + 2500, ended_at: null },
        { level: 4, started_at: T0 - 500, measure_from: T0 + 500, ended_at: T0 + 2000 },
      ],
    };
    const d = prepareRunTimeline(t)!;
    expect(d.origin_ms).toBe(T0 - 500);
    expect(d.rows.map((r) => [r.t, r.rps, r.errors, r.p50])).toEqual([
      [0.5, 10, 1, 4],
      [1.5, 0, 0, null],
      [2.5, 12, 0, 5],
    ]);
    expect(d.bands).toEqual([
      { level: 4, from: 0, measured: 1, to: 2.5, running: false },
      { level: 8, from: 2.5, measured: 3, to: 3.5, running: true },
    ]);
    expect(d.domain).toEqual([0, 3.5]);
    expect(bandAt(d.bands, 3)?.level).toBe(8);
    expect(bandAt(d.bands, 9)).toBeNull();
  });

  it('reads errors per second in wide buckets, and nothing at all as null', () => {
    const d = prepareRunTimeline({ run_id: '7d0c6c1e-0000-4000-8000-000000000001', bucket_s: 4, points: [{ ...point(0, 40, 32, 3), rps: 10 }], steps: [] })!;
    expect(d.rows[0]?.errors).toBe(2);
    expect(prepareRunTimeline({ run_id: '7d0c6c1e-0000-4000-8000-000000000001', bucket_s: 1, points: [], steps: [] })).toBeNull();
  });
});

describe('formatElapsed', () => {
  it('reads as a clock', () => {
    expect([0, 65, 3723].map(formatElapsed)).toEqual(['0:00', '1:05', '1:02:03']);
  });
});
