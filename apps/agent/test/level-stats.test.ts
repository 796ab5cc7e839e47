import { describe, expect, it } from 'vitest';
import { LevelStats } from '../src/load/level-stats.ts';
import type { Completion } from '../src/load/target-client.ts';

const ok: Pick<Completion, 'errorKind' | 'computeMs' | 'queueMs' | 'unparseable'> = { errorKind: null, computeMs: null, queueMs: null, unparseable: 0 };

describe('LevelStats', () => {
  it('counts only requests completed inside [measure_from, end], as the API does', () => {
    const s = new LevelStats(2, 1_000, 3_000);
    for (const t of [999, 1_000, 3_000, 3_001]) s.add(t, 10, ok);
    const sum = s.summarize(1_000, 3_000, false);
    expect(sum.requests).toBe(2);
    expect(sum.qps).toBe(1);
    expect(sum.window_s).toBe(2);
  });

  it('stops counting at an earlier end once the window is closed early', () => {
    const s = new LevelStats(2, 0, 3_000);
    s.closeAt(1_000);
    for (const t of [500, 1_500]) s.add(t, 10, ok);
    expect(s.summarize(0, 1_000, true)).toMatchObject({ requests: 1, aborted: true });
  });

  it('keeps errors out of the percentiles, QPS and mean, and counts them by cause', () => {
    const s = new LevelStats(1, 0, 1_000);
    for (let i = 1; i <= 100; i++) s.add(i, i, { ...ok, computeMs: i / 2, queueMs: 1 });
    s.add(500, 0.1, { ...ok, errorKind: 'ECONNRESET' });
    s.add(501, 0.2, { ...ok, errorKind: 'HTTP 503' });
    s.add(502, 0.2, { ...ok, errorKind: 'HTTP 503', unparseable: 2 });
    const sum = s.summarize(0, 1_000, false);
    expect(sum).toMatchObject({ requests: 103, errors: 3, qps: 100, error_kinds: { ECONNRESET: 1, 'HTTP 503': 2 }, unparseable_timings: 1 });
    expect(sum.mean_ms).toBeCloseTo(50.5, 6);
    expect(sum.p50_ms).toBeCloseTo(50, 1);
    expect(sum.p99_ms).toBeCloseTo(99, 1);
    expect(sum.compute_p50_ms).toBeCloseTo(25, 1);
    expect(sum.queue_p50_ms).toBeCloseTo(1, 2);
    expect(sum.other_p50_ms).toBeCloseTo(24, 0);
  });

  it('keeps microsecond precision, and null (never 0) for percentiles with no samples', () => {
    const s = new LevelStats(1, 0, 1_000);
    s.add(1, 0.123, ok);
    const sum = s.summarize(0, 1_000, false);
    expect(sum.p50_ms).toBeCloseTo(0.123, 3);
    expect(sum.compute_p50_ms).toBeNull();
    expect(new LevelStats(1, 0, 1_000).summarize(0, 0, true)).toMatchObject({ requests: 0, qps: 0, p50_ms: null, mean_ms: null, in_flight: null });
  });

  it("estimates requests in flight with Little's law", () => {
    // 4 requests of 500 ms completing in a 1 s window: 2 in flight on average.
    const s = new LevelStats(2, 0, 1_000);
    for (const t of [500, 500, 1_000, 1_000]) s.add(t, 500, ok);
    expect(s.summarize(0, 1_000, false).in_flight).toBe(2);
  });
});
