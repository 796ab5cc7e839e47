import { describe, expect, it } from 'vitest';
import { LevelStats } from '../src/sweep/level-stats.ts';
import type { RequestOutcome } from '../src/sweep/send-request.ts';

const outcome = (completedAtMs: number, latencyMs: number, extra: Partial<RequestOutcome> = {}): RequestOutcome => ({
  status: 200,
  latencyMs,
  completedAtMs,
  computeMs: null,
  queueMs: null,
  serverTimingUnparseable: false,
  responseBytes: 2,
  errorKind: null,
  ...extra,
});

describe('LevelStats', () => {
  it('counts only requests completed inside [measure_from, end], as the API does', () => {
    const s = new LevelStats(2, 1_000, 3_000);
    s.add(outcome(999, 10)); // warm-up
    s.add(outcome(1_000, 10));
    s.add(outcome(3_000, 10));
    s.add(outcome(3_001, 10)); // after the window
    const sum = s.summarize(1_000, 3_000, false);
    expect(sum.requests).toBe(2);
    expect(sum.qps).toBe(1);
    expect(sum.window_s).toBe(2);
  });

  it('keeps errors out of the percentiles and QPS, and counts them by cause', () => {
    const s = new LevelStats(1, 0, 1_000);
    for (let i = 1; i <= 100; i++) s.add(outcome(i, i, { computeMs: i / 2, queueMs: 1 }));
    s.add(outcome(500, 0.1, { status: 0, errorKind: 'ECONNRESET' }));
    s.add(outcome(501, 0.2, { status: 503, errorKind: 'HTTP 503' }));
    s.add(outcome(502, 0.2, { status: 503, errorKind: 'HTTP 503' }));
    const sum = s.summarize(0, 1_000, false);
    expect(sum.requests).toBe(103);
    expect(sum.errors).toBe(3);
    expect(sum.qps).toBe(100);
    expect(sum.error_kinds).toEqual({ ECONNRESET: 1, 'HTTP 503': 2 });
    expect(sum.p50_ms).toBeCloseTo(50, 1);
    expect(sum.p99_ms).toBeCloseTo(99, 1);
    expect(sum.compute_p50_ms).toBeCloseTo(25, 1);
    expect(sum.queue_p50_ms).toBeCloseTo(1, 2);
    // latency − compute − queue = i/2 − 1 → median ≈ 24
    expect(sum.other_p50_ms).toBeCloseTo(24, 0);
  });

  it('keeps microsecond precision for sub-millisecond latencies', () => {
    const s = new LevelStats(1, 0, 1_000);
    s.add(outcome(1, 0.123));
    expect(s.summarize(0, 1_000, false).p50_ms).toBeCloseTo(0.123, 3);
  });

  it('reports null, never 0, for percentiles with no samples', () => {
    const s = new LevelStats(1, 0, 1_000);
    s.add(outcome(1, 5));
    const sum = s.summarize(0, 1_000, false);
    expect(sum.compute_p50_ms).toBeNull();
    expect(sum.queue_p99_ms).toBeNull();
    expect(sum.other_p50_ms).toBeNull();
    const empty = new LevelStats(1, 0, 1_000).summarize(0, 0, true);
    expect(empty).toMatchObject({ requests: 0, qps: 0, p50_ms: null, in_flight: null, aborted: true });
  });

  it("estimates requests in flight with Little's law", () => {
    // 4 requests of 500 ms completing in a 1 s window: 2 in flight on average.
    const s = new LevelStats(2, 0, 1_000);
    for (const t of [500, 500, 1_000, 1_000]) s.add(outcome(t, 500));
    expect(s.summarize(0, 1_000, false).in_flight).toBe(2);
  });
});
