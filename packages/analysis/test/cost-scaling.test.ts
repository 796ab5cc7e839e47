import { describe, expect, it } from 'vitest';
import type { CurvePoint, StepWindow } from '@kneeboard/contracts';
import { costRatio, scalingSentence } from '../src/cost-scaling.ts';
import { costMarkdown, runCost, type StepMetrics } from '../src/cost.ts';

// Seed 002 (Crystal's multi-threading preview, wrk): one thread served 50,590 req/s at 100% CPU,
// the multi-threaded build 108,131 req/s at 460% — "rather than a 4.6x improvement in throughput we only get 2.14x".
const ST = { level: 1, qps: 50_590.09, cores_used: 1.0 };
const MT = { level: 4, qps: 108_131.26, cores_used: 4.6 };

describe('costRatio', () => {
  it('is the throughput and CPU ratios and their quotient, the per-core change', () => {
    const r = costRatio(ST, MT)!;
    expect(r.qps_ratio).toBe(108_131.26 / 50_590.09);
    expect(r.cpu_ratio).toBe(4.6);
    expect(r.per_core).toBe(r.qps_ratio / r.cpu_ratio);
  });

  it('is null where a point lacks a positive throughput or CPU figure', () => {
    expect(costRatio({ qps: 0, cores_used: 1 }, MT)).toBeNull();
    expect(costRatio(ST, { qps: 10, cores_used: null })).toBeNull();
    expect(costRatio({ qps: Number.NaN, cores_used: 1 }, MT)).toBeNull();
    expect(costRatio(ST, { qps: 10, cores_used: 0 })).toBeNull();
  });
});

describe('scalingSentence', () => {
  it('states seed 002’s bill: 2.14× the throughput for 4.6× the CPU', () => {
    expect(scalingSentence([MT, ST], 'threads')).toBe('threads 1 → 4: 2.14× the throughput for 4.6× the CPU — each core delivers 46% of what it did at 1');
  });

  it('spans the lowest to the highest level with both figures, and is null with fewer than two', () => {
    const levels = [{ level: 1, qps: null, cores_used: 0.5 }, { level: 2, qps: 200, cores_used: 1 }, { level: 8, qps: 800, cores_used: 4 }, { level: 16, qps: 800, cores_used: null }];
    expect(scalingSentence(levels, 'concurrency')).toBe('concurrency 2 → 8: 4× the throughput for 4× the CPU — each core delivers 100% of what it did at 2');
    expect(scalingSentence([ST], 'threads')).toBeNull();
    expect(scalingSentence([], 'threads')).toBeNull();
  });
});

describe('runCost with seed 002’s CPU series', () => {
  const T0 = 1_800_000_000;
  const point = (level: number, qps: number): CurvePoint => ({ level, requests: Math.round(qps * 10), errors: 0, qps, window_s: 10, p50_ms: 0.2, p90_ms: 0.3, p99_ms: 0.5, p999_ms: 1, compute_p50_ms: null, compute_p99_ms: null, queue_p50_ms: null, queue_p99_ms: null, other_p50_ms: null, in_progress: false });
  const step = (level: number, i: number): StepWindow => ({ level, started_at: (T0 + 20 * i) * 1000, measure_from: (T0 + 20 * i + 2) * 1000, ended_at: (T0 + 20 * i + 12) * 1000, health: null });
  const metrics = (level: number, i: number, cores: number): StepMetrics => ({
    level,
    source: 'process',
    cores_available: null,
    notes: [],
    series: new Map([['cpu', { fn: 'rate' as const, points: Array.from({ length: 13 }, (_, s) => ({ second: T0 + 20 * i + s, value: cores })) }]]),
  });
  const cost = runCost({ curve: [point(1, ST.qps), point(4, MT.qps)], steps: [step(1, 0), step(4, 1)], metrics: [metrics(1, 0, 1), metrics(4, 1, 4.6)], knee: null, parameter: 'threads' });

  it('carries the sentence, and the Markdown prints it above the table', () => {
    expect(cost.scaling).toBe('threads 1 → 4: 2.14× the throughput for 4.6× the CPU — each core delivers 46% of what it did at 1');
    // The sentence's per-core share is the table's efficiency per core at the top level.
    expect(cost.levels[1]!.efficiency_per_core).toBeCloseTo(costRatio(ST, MT)!.per_core, 12);
    expect(costMarkdown(cost, 'threads').split('\n').slice(0, 3)).toEqual(['threads 1 → 4: 2.14× the throughput for 4.6× the CPU — each core delivers 46% of what it did at 1', '', '| threads | cores used | peak memory | req/s per core | CPU-s per 1,000 req | efficiency per core |']);
  });
});
