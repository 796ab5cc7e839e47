/**
 * Server metrics for fixture runs, turned into the RunCost the API would answer: per-second CPU and
 * memory over each step, read by the analysis package's own `runCost` (the function the API calls),
 * so the page is checked against the real rules, not a second copy of them.
 */
import { runCost, type StepMetrics } from '@kneeboard/analysis';
import type { CurvePoint, RunCost, RunDetail } from '@kneeboard/contracts';
import { point, run, stepsFor, uuid, withAnalysis } from './fixture-data.ts';

export interface FixtureMetrics {
  /** Cores busy every second of a level's step. */
  cores: (p: CurvePoint) => number;
  coresAvailable: number | null;
  /** Resident memory at a level, bytes (it rises through the step to this peak). */
  memoryBytes: (p: CurvePoint) => number;
  /** Levels whose reads failed for a stretch: the seconds [from, to) after the step's start go missing and the gap is named. */
  gaps?: Record<number, { from: number; to: number; why: string }>;
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** What the agent would have stored for each of the run's steps. */
export function fixtureServerMetrics(d: RunDetail, m: FixtureMetrics): StepMetrics[] {
  return d.steps.flatMap((step) => {
    const p = d.curve.find((c) => c.level === step.level);
    if (!p || step.ended_at === null) return [];
    const gap = m.gaps?.[step.level];
    const first = Math.ceil(step.started_at / 1000);
    const seconds = Array.from({ length: Math.floor(step.ended_at / 1000) - first + 1 }, (_, i) => first + i).filter((s) => !gap || s < first + gap.from || s >= first + gap.to);
    const peak = m.memoryBytes(p);
    return [
      {
        level: step.level,
        source: 'metrics-url' as const,
        cores_available: m.coresAvailable,
        notes: gap ? [`cpu: no samples between ${clock((first + gap.from) * 1000)} and ${clock((first + gap.to) * 1000)} (${gap.why})`] : [],
        series: new Map([
          ['cpu', { fn: 'rate' as const, points: seconds.map((second) => ({ second, value: m.cores(p) })) }],
          ['mem', { fn: 'max' as const, points: seconds.map((second, i) => ({ second, value: peak - (seconds.length - 1 - i) * 1024 * 1024 })) }],
        ]),
      },
    ];
  });
}

export function fixtureCost(d: RunDetail, m: FixtureMetrics): RunCost {
  return runCost({ curve: d.curve, steps: d.steps, metrics: fixtureServerMetrics(d, m), knee: d.analysis.knee?.level ?? null, parameter: d.run.parameter });
}

/**
 * Seed 001 (exact search on an 8-core Mac): the server's compute time is CPU, so the cores busy
 * are QPS × compute p50 — 7.6 of 8 at the knee. Level 16's reads failed for two seconds.
 */
export const SEED_001_METRICS: FixtureMetrics = {
  cores: (p) => (p.qps * (p.compute_p50_ms ?? 0)) / 1000,
  coresAvailable: 8,
  memoryBytes: (p) => (1_200 + 4 * p.level) * 1024 * 1024,
  gaps: { 16: { from: 5, to: 7, why: 'connection refused' } },
};

export const SEED_002_ID = uuid(2002);

/**
 * Seed 002 (Crystal's multi-threading preview under wrk): one thread 50,590 req/s at 100% CPU, the
 * multi-threaded build 108,131 req/s at 460% — as one run sweeping threads (1, then 4: the post
 * does not say how many threads ran; 4 is Crystal's default worker count).
 */
export function seed002Run(now: number): RunDetail {
  const created = now - 2 * 60 * 60 * 1000;
  const curve = [point(1, { qps: 50_590.09, p50_ms: 0.199, p99_ms: 0.5 }), point(4, { qps: 108_131.26, p50_ms: 0.0935, p99_ms: 0.3 })];
  return withAnalysis({
    run: run({ id: SEED_002_ID, service: 'crystal-http', release: '0.31.0-preview_mt', name: 'HTTP::Server, wrk', parameter: 'threads', created_at: created, finished_at: created + 2 * 12_000 }),
    steps: stepsFor(curve, created, 12_000, 2_000),
    curve,
  });
}

export const SEED_002_METRICS: FixtureMetrics = {
  cores: (p) => (p.level === 1 ? 1 : 4.6),
  coresAvailable: 32,
  memoryBytes: (p) => (p.level === 1 ? 9 : 14) * 1024 * 1024,
};
