import { describe, expect, it } from 'vitest';
import type { CurvePoint, StepWindow } from '@kneeboard/contracts';
import { costMarkdown, costVerdict, runCost, type StepMetrics } from '../src/cost.ts';

const T0 = 1_800_000_000; // epoch seconds
const point = (level: number, qps: number, window_s = 10): CurvePoint => ({
  level,
  requests: Math.round(qps * window_s),
  errors: 0,
  qps,
  window_s,
  p50_ms: 1,
  p90_ms: 1,
  p99_ms: 1,
  p999_ms: 1,
  compute_p50_ms: null,
  compute_p99_ms: null,
  queue_p50_ms: null,
  queue_p99_ms: null,
  other_p50_ms: null,
  in_progress: false,
});
// Level i's step: 2 s warm-up, then 10 s measured, 20 s apart.
const step = (level: number, i: number): StepWindow => ({ level, started_at: (T0 + 20 * i) * 1000, measure_from: (T0 + 20 * i + 2) * 1000, ended_at: (T0 + 20 * i + 12) * 1000, health: null });
/** A per-second cpu rate of `cores` over the whole step (`warmupCores` in the warm-up), memory rising. */
function metrics(level: number, i: number, cores: number, coresAvailable: number | null, warmupCores = 0): StepMetrics {
  const cpu = [];
  const mem = [];
  for (let s = 0; s <= 12; s++) {
    cpu.push({ second: T0 + 20 * i + s, value: s < 2 ? warmupCores : cores });
    mem.push({ second: T0 + 20 * i + s, value: 1_000_000 * (level + s) });
  }
  return {
    level,
    source: 'metrics-url',
    cores_available: coresAvailable,
    notes: [],
    series: new Map([
      ['cpu', { fn: 'rate' as const, points: cpu }],
      ['mem', { fn: 'max' as const, points: mem }],
    ]),
  };
}

describe('runCost', () => {
  const levels = [1, 2, 4, 8];
  const qps = [100, 200, 380, 400];
  const cores = [0.5, 1, 1.9, 2.0];
  const input = {
    curve: levels.map((l, i) => point(l, qps[i]!)),
    steps: levels.map((l, i) => step(l, i)),
    metrics: levels.map((l, i) => metrics(l, i, cores[i]!, 2, 9)),
    knee: 4,
    parameter: 'concurrency',
  };
  const cost = runCost(input);

  it('cores used is the mean over the measured window only (warm-up seconds left out)', () => {
    expect(cost.levels.map((l) => l.cores_used)).toEqual(cores);
    expect(cost.levels.map((l) => l.seconds)).toEqual([11, 11, 11, 11]); // measure_from … ended_at, both ends
  });

  it('QPS per core, CPU-seconds per 1,000 requests and per-core efficiency follow from what is stored', () => {
    for (const [i, l] of cost.levels.entries()) {
      const p = input.curve[i]!;
      expect(l.qps_per_core).toBe(p.qps / cores[i]!);
      expect(l.cpu_seconds_per_1k).toBe(((cores[i]! * p.window_s) / p.requests) * 1000);
    }
    expect(cost.levels[0]!.efficiency_per_core).toBe(1);
    expect(cost.levels[3]!.efficiency_per_core).toBeCloseTo(1, 12);
    expect(cost.levels[2]!.efficiency_per_core).toBeCloseTo(380 / 1.9 / 200, 12);
  });

  it('peak memory is the highest value inside the window', () => {
    expect(cost.levels[0]!.peak_memory_bytes).toBe(1_000_000 * (1 + 12));
  });

  it('says CPU-bound when the knee has the cores busy', () => {
    expect(cost.verdict).toBe('saturates at 4 with 1.9 of 2 cores busy: CPU-bound');
  });

  it('says not CPU when the knee leaves cores idle, and only the cores busy when the count is unknown', () => {
    const idle = runCost({ ...input, metrics: levels.map((l, i) => metrics(l, i, cores[i]! / 4, 8)) });
    expect(idle.verdict).toBe('saturates at 4 with 0.48 of 8 cores busy: not CPU — look for a lock, a pool or I/O');
    const unknown = runCost({ ...input, metrics: levels.map((l, i) => metrics(l, i, 2.1, null)) });
    expect(unknown.verdict).toBe('saturates at 4 with 2.1 cores busy (cores available unknown: pass --cores to judge)');
    expect(costVerdict(unknown.levels, 4, 'workers')).toMatch(/^saturates at workers 4 /);
  });

  it('has no verdict without a knee or a CPU series, and null figures where they cannot be known', () => {
    expect(runCost({ ...input, knee: null }).verdict).toBeNull();
    const noCpu = runCost({ ...input, metrics: [{ ...metrics(1, 0, 1, 2), series: new Map() }] });
    expect(noCpu.levels[0]).toMatchObject({ cores_used: null, qps_per_core: null, cpu_seconds_per_1k: null, efficiency_per_core: null, peak_memory_bytes: null, seconds: 0 });
    expect(noCpu.verdict).toBeNull();
  });
});

describe('costMarkdown', () => {
  it('prints the verdict, one row per level through the figures, and each step’s notes escaped', () => {
    const cost = {
      verdict: 'saturates at 4 with 1.9 of 2 cores busy: CPU-bound',
      levels: [
        { level: 1, source: 'process' as const, cores_used: 0.5, cores_available: 2, peak_memory_bytes: 50 * 1024 * 1024, qps_per_core: 200, cpu_seconds_per_1k: 5, efficiency_per_core: 1, seconds: 10, notes: [] },
        { level: 4, source: 'process' as const, cores_used: null, cores_available: null, peak_memory_bytes: null, qps_per_core: null, cpu_seconds_per_1k: null, efficiency_per_core: null, seconds: 0, notes: ['cpu: no samples between 12:00:03 and 12:00:05 (HTTP 500) *x*'] },
      ],
    };
    expect(costMarkdown(cost, 'concurrency')).toBe(
      [
        '**saturates at 4 with 1.9 of 2 cores busy: CPU-bound**',
        '',
        '| concurrency | cores used | peak memory | req/s per core | CPU-s per 1,000 req | efficiency per core |',
        '|---:|---:|---:|---:|---:|---:|',
        '| 1 | 0.50 of 2 | 50.0 MiB | 200 | 5 | 100% |',
        '| 4 | — | — | — | — | — |',
        '',
        '- concurrency 4: cpu: no samples between 12:00:03 and 12:00:05 (HTTP 500) \\*x\\*',
        '',
      ].join('\n'),
    );
    expect(costMarkdown({ verdict: null, levels: [] }, 'concurrency')).toMatch(/^No server metrics/);
  });
});
