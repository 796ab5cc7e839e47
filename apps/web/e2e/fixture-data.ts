/**
 * Fixture runs in the API's shapes (RunDetail), for the fixture server and the browser tests.
 * One is seed 001's table (exact search over 1M vectors on an 8-core machine), one a wide
 * power-of-two sweep with a level where every request failed (its percentiles are null: a gap), one
 * sweep whose load generator could not keep the configured concurrency in flight, one so noisy that
 * the USL fits it poorly, one aborted run,
 * and a synthetic model used by the live run. Each detail carries the `analysis` the real API would
 * send, computed by `@kneeboard/analysis` from its curve (never written by hand).
 */
import { analyzeCurve } from '@kneeboard/analysis';
import type { CurvePoint, Run, RunDetail, StepWindow } from '@kneeboard/contracts';

const HOUR = 3_600_000;

export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export const FIXTURE_IDS = {
  seed: uuid(1),
  wide: uuid(2),
  aborted: uuid(3),
  live: uuid(4),
  generatorLimited: uuid(5),
  noisy: uuid(6),
} as const;

/** A run as it is stored, before the API analyses its curve. */
export type StoredRun = Omit<RunDetail, 'analysis'>;

/** The detail as the API sends it: with the analysis of its curve, recomputed like every API answer. */
export function withAnalysis(detail: StoredRun): RunDetail {
  const { curve, run } = detail;
  return { ...detail, analysis: analyzeCurve({ curve, load_model: run.load_model, parameter: run.parameter }) };
}

/**
 * A fixture curve point from its throughput and median: requests from the QPS over the window, the
 * other percentiles from the median unless given, no server timing unless given.
 */
export function point(level: number, v: Partial<CurvePoint> & { qps: number; p50_ms: number | null }, windowS = 10): CurvePoint {
  const requests = Math.round(v.qps * windowS) + (v.errors ?? 0);
  return {
    level,
    requests: v.requests ?? requests,
    errors: v.errors ?? 0,
    qps: v.qps,
    window_s: windowS,
    ...(v.mean_ms !== undefined ? { mean_ms: v.mean_ms } : {}),
    p50_ms: v.p50_ms,
    p90_ms: v.p90_ms ?? (v.p50_ms === null ? null : v.p50_ms * 1.18),
    p99_ms: v.p99_ms ?? (v.p50_ms === null ? null : v.p50_ms * 1.6),
    p999_ms: v.p999_ms ?? (v.p50_ms === null ? null : v.p50_ms * 2.1),
    compute_p50_ms: v.compute_p50_ms ?? null,
    compute_p99_ms: v.compute_p99_ms ?? null,
    queue_p50_ms: v.queue_p50_ms ?? null,
    queue_p99_ms: v.queue_p99_ms ?? null,
    other_p50_ms: v.other_p50_ms ?? null,
    in_progress: v.in_progress ?? false,
  };
}

export function stepsFor(curve: CurvePoint[], start: number, stepMs: number, warmupMs: number): StepWindow[] {
  return curve.map((p, i) => ({
    level: p.level,
    started_at: start + i * stepMs,
    measure_from: start + i * stepMs + warmupMs,
    ended_at: p.in_progress ? null : start + (i + 1) * stepMs,
  }));
}

export function run(fields: Partial<Run> & Pick<Run, 'id' | 'service' | 'release' | 'created_at'>): Run {
  return {
    name: '',
    git_sha: null,
    load_model: 'closed',
    parameter: 'concurrency',
    tags: {},
    agent_host: null,
    agent_cores: null,
    status: 'finished',
    finished_at: null,
    ...fields,
  };
}

/** Seed 001: client p50/p99, server compute p50 and interface+queue p50 per concurrency (2 and 4 interpolated). */
export function seedRun(now: number): RunDetail {
  const created = now - 3 * HOUR;
  const rows: Array<[number, number, number, number, number, number]> = [
    // level, qps, p50, p99, compute p50, interface+queue p50
    [1, 20, 49, 52, 49, 0.2],
    [2, 39.4, 50.6, 55.1, 50.4, 0.2],
    [4, 70.8, 56.3, 71.9, 56.1, 0.25],
    [8, 100, 77, 145, 76, 0.3],
    [16, 100, 157, 216, 76, 79],
    [32, 103, 310, 355, 75, 234],
  ];
  const curve = rows.map(([level, qps, p50, p99, compute, iq]) =>
    point(level, {
      qps,
      p50_ms: p50,
      p90_ms: p50 + (p99 - p50) * 0.55,
      p99_ms: p99,
      p999_ms: p99 * 1.12,
      compute_p50_ms: compute,
      compute_p99_ms: compute * 1.3,
      queue_p50_ms: Math.max(0, iq - 0.18),
      queue_p99_ms: Math.max(0, iq * 1.4),
      other_p50_ms: Math.min(iq, 0.18),
    }),
  );
  return withAnalysis({
    run: run({
      id: FIXTURE_IDS.seed,
      service: 'vector-search',
      release: 'v0.2.0',
      name: 'exact search, 1M SIFT vectors',
      git_sha: '8ac779320affd42f0c1e5d2b3a4f5e6d7c8b9a01',
      tags: { index: 'flat', dataset: 'sift-1m', machine: 'mac-8core' },
      agent_host: 'bench-mac.local',
      agent_cores: 8,
      created_at: created,
      finished_at: created + 6 * 12_000,
    }),
    steps: stepsFor(curve, created, 12_000, 2_000),
    curve,
  });
}

/**
 * A closed-loop server with `workers` parallel workers and `serviceMs` of work per request: below
 * the knee latency is the service time, above it requests queue (Little's law: latency = N / X).
 */
export function modelPoint(level: number, opts: { workers?: number; serviceMs?: number; windowS?: number; inProgress?: boolean } = {}): CurvePoint {
  const workers = opts.workers ?? 8;
  const serviceMs = opts.serviceMs ?? 20;
  const busy = Math.min(level, workers);
  const compute = serviceMs * (1 + 0.012 * (busy - 1));
  const qps = (busy / compute) * 1000 * (1 - 0.0004 * Math.max(0, level - workers));
  const latency = (level / qps) * 1000;
  const other = 0.35 + 0.002 * level;
  const queue = Math.max(0, latency - compute - other);
  const windowS = opts.windowS ?? 5;
  return point(
    level,
    {
      qps,
      mean_ms: latency,
      p50_ms: latency,
      p90_ms: latency * 1.12 + 1,
      p99_ms: latency * 1.45 + 3,
      p999_ms: latency * 1.9 + 6,
      compute_p50_ms: compute,
      compute_p99_ms: compute * 1.35,
      queue_p50_ms: queue,
      queue_p99_ms: queue * 1.5,
      other_p50_ms: other,
      in_progress: opts.inProgress ?? false,
    },
    windowS,
  );
}

/** 1 … 512: ten levels, log-spaced; at 512 every request timed out, so its percentiles are null. */
export function wideRun(now: number): RunDetail {
  const created = now - 26 * HOUR;
  const levels = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
  const curve = levels.map((l) => modelPoint(l, { workers: 16, serviceMs: 12, windowS: 10 }));
  // At 512 every request timed out: errors only, so no percentile or timing to draw (a gap), not a zero.
  const last = curve.length - 1;
  curve[last] = point(512, { qps: 0, requests: 4210, errors: 4210, mean_ms: curve[last]?.mean_ms, p50_ms: null }, 10);
  return withAnalysis({
    run: run({
      id: FIXTURE_IDS.wide,
      service: 'checkout-api',
      release: 'v2.3.1',
      name: 'pool size 16, before the fix',
      git_sha: 'c0ffee1234',
      tags: { region: 'eu-west-1', pool: '16' },
      agent_host: 'loadgen-2',
      agent_cores: 4,
      created_at: created,
      finished_at: created + 10 * 15_000,
    }),
    steps: stepsFor(curve, created, 15_000, 3_000),
    curve,
  });
}

/**
 * An open-loop step: `rate` req/s offered to a server that serves at most `capacity`. Below it the
 * server keeps up (achieved a hair under offered); past it achieved flattens at the capacity and
 * slowly sags, while the queue (and so latency) grows with the backlog over the step.
 */
export function openLoopPoint(rate: number, opts: { capacity: number; serviceMs: number; windowS?: number }): CurvePoint {
  const { capacity, serviceMs } = opts;
  const rho = Math.min(rate / capacity, 0.97);
  const qps = rate <= capacity ? rate * 0.998 : capacity * (1 - 0.04 * Math.log2(rate / capacity));
  const queue = rate <= capacity ? (serviceMs * rho) / (1 - rho) : serviceMs * 30 * Math.log2(rate / capacity + 1);
  const latency = serviceMs + queue + 0.4;
  const errors = rate > capacity ? Math.round((rate - qps) * 0.02 * (opts.windowS ?? 10)) : 0;
  return point(
    rate,
    {
      qps,
      errors,
      mean_ms: latency,
      p50_ms: latency,
      p90_ms: latency * 1.3 + 1,
      p99_ms: latency * 1.9 + 4,
      p999_ms: latency * 2.6 + 9,
      compute_p50_ms: serviceMs,
      compute_p99_ms: serviceMs * 1.4,
      queue_p50_ms: queue,
      queue_p99_ms: queue * 1.8,
      other_p50_ms: 0.4,
    },
    opts.windowS ?? 10,
  );
}

export function abortedRun(now: number): RunDetail {
  const created = now - 50 * HOUR;
  const curve = [50, 100, 200, 400, 800].map((rate) => openLoopPoint(rate, { capacity: 330, serviceMs: 12 }));
  return withAnalysis({
    run: run({
      id: FIXTURE_IDS.aborted,
      service: 'checkout-api',
      release: 'v2.3.0',
      name: 'open-loop smoke, rates 50–800 req/s',
      load_model: 'open',
      parameter: 'rate',
      agent_host: 'laptop',
      agent_cores: 10,
      status: 'aborted',
      created_at: created,
      finished_at: created + 40_000,
    }),
    steps: stepsFor(curve, created, 10_000, 1_000),
    curve,
  });
}

/**
 * A sweep where the agent, not the server, ran out: its client pool holds at most 20 connections,
 * so from concurrency 32 on only ~20 requests are in flight. Throughput flattens while latency
 * stays low (the server is not queueing), and Little's law (QPS × mean latency ≈ 20, not 32, 64,
 * 128) gives it away. At 128 some requests time out waiting for a pooled connection.
 */
export function generatorLimitedRun(now: number): RunDetail {
  const created = now - 8 * HOUR;
  const pool = 20;
  const levels = [1, 2, 4, 8, 16, 32, 64, 128];
  const curve = levels.map((level) => {
    const inFlight = Math.min(level, pool * (1 - 0.01 * Math.log2(Math.max(1, level / pool))));
    const mean = 4.2 * (1 + 0.012 * (inFlight - 1));
    const qps = (inFlight / mean) * 1000;
    const p50 = mean * 0.93;
    const errors = level === 128 ? 61 : 0;
    return point(level, {
      qps,
      errors,
      mean_ms: mean,
      p50_ms: p50,
      p90_ms: mean * 1.35,
      p99_ms: mean * 2.4 + (level > pool ? 6 : 0),
      p999_ms: mean * 3.6 + (level > pool ? 20 : 0),
      compute_p50_ms: p50 * 0.82,
      compute_p99_ms: p50 * 1.4,
      queue_p50_ms: 0.05,
      queue_p99_ms: 0.4,
      other_p50_ms: p50 * 0.18 - 0.05,
    });
  });
  return withAnalysis({
    run: run({
      id: FIXTURE_IDS.generatorLimited,
      service: 'search-api',
      release: 'v4.1.0',
      name: 'agent pool capped at 20 connections',
      git_sha: '5eac40a1b2c3',
      tags: { region: 'us-east-1', agent: 'shared' },
      agent_host: 'loadgen-small',
      agent_cores: 2,
      created_at: created,
      finished_at: created + levels.length * 10_000,
    }),
    steps: stepsFor(curve, created, 10_000, 1_000),
    curve,
  });
}

/**
 * A sweep on a shared CI runner whose neighbours came and went: throughput jumps up and down from
 * level to level, so no smooth scalability curve explains it. The USL fits poorly (R² ≈ 0.7): its
 * line is not drawn by default, and the analysis says to read σ, κ and the peak with care.
 */
export function noisyRun(now: number): RunDetail {
  const created = now - 12 * HOUR;
  const levels = [1, 2, 4, 8, 16, 32, 64];
  const noise = [1, 1.6, 0.7, 1.5, 0.55, 1.2, 0.5];
  const curve = levels.map((level, i) => {
    const p = modelPoint(level, { workers: 16, serviceMs: 10, windowS: 10 });
    const qps = p.qps * (noise[i] ?? 1);
    const mean = (level / qps) * 1000;
    return point(level, { qps, mean_ms: mean, p50_ms: mean * 0.95, p99_ms: mean * 2.2, compute_p50_ms: 9.5, compute_p99_ms: 14, queue_p50_ms: Math.max(0, mean * 0.95 - 9.9), queue_p99_ms: mean, other_p50_ms: 0.4 }, 10);
  });
  return withAnalysis({
    run: run({
      id: FIXTURE_IDS.noisy,
      service: 'report-builder',
      release: 'v0.9.2',
      name: 'shared CI runner (noisy neighbours)',
      parameter: 'threads',
      tags: { runner: 'shared-ci' },
      agent_host: 'ci-shared-7',
      agent_cores: 4,
      created_at: created,
      finished_at: created + levels.length * 10_000,
    }),
    steps: stepsFor(curve, created, 10_000, 1_000),
    curve,
  });
}

export const LIVE_LEVELS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64];

/**
 * The live run after `tick` ticks: levels before the tick are complete, the tick's level is being
 * measured (its window half full), and after the last level the run is finished.
 */
export function liveRunAt(tick: number, createdAt: number, levels: ReadonlyArray<number> = LIVE_LEVELS, stepMs = 300): RunDetail {
  const done = Math.min(tick, levels.length);
  const curve: CurvePoint[] = levels.slice(0, done).map((l) => modelPoint(l));
  const current = levels[done];
  if (current !== undefined) curve.push(modelPoint(current, { windowS: 2.5, inProgress: true }));
  const finished = tick >= levels.length;
  return withAnalysis({
    run: run({
      id: FIXTURE_IDS.live,
      service: 'demo-target',
      release: 'v1.0.0',
      name: 'live sweep (8 workers, 20 ms)',
      git_sha: 'deadbeef00',
      tags: { env: 'e2e' },
      agent_host: 'ci-runner',
      agent_cores: 2,
      status: finished ? 'finished' : 'running',
      created_at: createdAt,
      finished_at: finished ? createdAt + levels.length * stepMs : null,
    }),
    steps: stepsFor(curve, createdAt, stepMs, 0),
    curve,
  });
}

/** The static fixture runs, newest first, each with its analysis. */
export function staticRuns(now: number): RunDetail[] {
  return [seedRun(now), generatorLimitedRun(now), noisyRun(now), wideRun(now), abortedRun(now)];
}
