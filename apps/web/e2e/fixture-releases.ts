/**
 * Release comparisons for the fixture API, from the seeds this view exists for:
 *
 * - seed 004 (`fusillade`, swept by workers): v1.6.1 stuck near 99k RPS whatever the worker count
 *   (16 carrier threads: the load generator was the ceiling, and Little's law says so), v1.6.2 with
 *   the carrier pool fixed (121k–131k), and the peer tool k6 on the same script, falling from 122k
 *   to 79k as virtual users grow. v1.6.2 also has a newer aborted run, so "the newest finished run"
 *   is not simply the newest.
 * - seed 000 (`crowkis`, swept by threads): v0.2.2 flat at ~9 ops/s (one serial ONNX embed behind a
 *   single-writer actor: sixteen threads queue on it), and the embedding-deferral fix, which also
 *   swept 32 threads (a level only the head has). Both carry labels and a note for the review.
 */
import type { CurvePoint, Run, RunDetail } from '@kneeboard/contracts';
import { point, run, stepsFor, uuid, withAnalysis } from './fixture-data.ts';

const HOUR = 3_600_000;

export const RELEASE_IDS = {
  fusilladeBefore: uuid(0x101),
  fusilladeAfter: uuid(0x102),
  fusilladeAfterAborted: uuid(0x103),
  fusilladeK6: uuid(0x104),
  crowkisBefore: uuid(0x201),
  crowkisFix: uuid(0x202),
} as const;

interface Row {
  level: number;
  qps: number;
  p50: number;
  p99: number;
}

/** A row of a release's table as the API's curve point: the mean a little above the median, p90 between p50 and p99, p99.9 beyond. */
function releasePoint({ level, qps, p50, p99 }: Row): CurvePoint {
  return point(level, { qps, mean_ms: p50 * 1.08, p50_ms: p50, p90_ms: p50 + (p99 - p50) * 0.45, p99_ms: p99, p999_ms: p99 * 1.5 });
}

function detail(fields: Partial<Run> & Pick<Run, 'id' | 'service' | 'release' | 'name' | 'created_at' | 'parameter'>, rows: Row[], stepMs = 15_000): RunDetail {
  const curve = rows.map(releasePoint);
  return withAnalysis({
    run: run({ labels: [], note: '', finished_at: fields.created_at + rows.length * stepMs, ...fields }),
    steps: stepsFor(curve, fields.created_at, stepMs, 2000),
    curve,
  });
}

const WORKERS = [50, 200, 500, 1000, 2000];

/** Seed 004's "before, after, k6" table; latencies are the tool's own (p95 0.25 ms before the fix). */
export function fusilladeRuns(now: number): RunDetail[] {
  const common = { service: 'fusillade', parameter: 'workers', agent_host: 'bench-16c', agent_cores: 16, tags: { target: 'simple GET', machine: '16-core' } };
  const before = [99_400, 98_300, 95_800, 99_100, 92_300];
  const after = [120_797, 129_924, 130_866, 127_764, 131_043];
  const k6 = [121_900, 113_200, 105_200, 87_000, 78_600];
  return [
    detail(
      {
        ...common,
        id: RELEASE_IDS.fusilladeK6,
        release: 'k6-v0.52.0',
        name: 'peer: k6, same script',
        tags: { ...common.tags, tool: 'k6' },
        labels: ['peer tool'],
        note: 'k6 with the same script and VU counts, for scale: it slows down as virtual users grow and used 700 MB–1 GB.',
        created_at: now - 4 * HOUR,
      },
      // A closed loop: every VU has one request in flight, so latency = VUs ÷ throughput.
      WORKERS.map((level, i) => {
        const qps = k6[i] ?? 0;
        const p50 = (level / qps) * 1000 * 0.92;
        return { level, qps, p50, p99: p50 * 3.1 };
      }),
    ),
    detail(
      { ...common, id: RELEASE_IDS.fusilladeAfterAborted, release: 'v1.6.2', name: 'memory profile (stopped)', status: 'aborted', created_at: now - 5 * HOUR },
      WORKERS.slice(0, 2).map((level, i) => ({ level, qps: (after[i] ?? 0) * 0.97, p50: 0.4, p99: 1.1 })),
    ),
    detail(
      {
        ...common,
        id: RELEASE_IDS.fusilladeAfter,
        release: 'v1.6.2',
        name: 'carrier pool sized to the CPUs',
        git_sha: '1b6c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c',
        labels: ['fix'],
        note: 'Carrier pool now a multiple of the CPU count with a cap (FUSILLADE_MAY_WORKERS overrides it). Memory 48–161 MB.',
        created_at: now - 6 * HOUR,
      },
      // Up to ~160 carriers in flight: latency grows until the pool is busy, then holds.
      WORKERS.map((level, i) => {
        const qps = after[i] ?? 0;
        const p50 = (Math.min(level, 160) / qps) * 1000 * 0.9;
        return { level, qps, p50, p99: p50 * 2.4 };
      }),
    ),
    detail(
      {
        ...common,
        id: RELEASE_IDS.fusilladeBefore,
        release: 'v1.6.1',
        name: 'regression round after the feature work',
        git_sha: '9a4d6776f7915b45aa11bb22cc33dd44ee55ff66',
        labels: ['baseline'],
        note: 'Flat near 99k RPS from 50 to 2000 workers with tiny constant latency: 16 carrier threads, so only 16 requests were ever in flight.',
        created_at: now - 30 * HOUR,
      },
      WORKERS.map((level, i) => ({ level, qps: before[i] ?? 0, p50: 0.16 + 0.002 * i, p99: 0.42 + 0.01 * i })),
    ),
  ];
}

/** Seed 000: v0.2.2's flat ~9 ops/s, and the embedding-deferral fix (which also swept 32 threads). */
export function crowkisRuns(now: number): RunDetail[] {
  const common = { service: 'crowkis', parameter: 'threads', agent_host: 'roost-bench', agent_cores: 16 };
  const closed = (level: number, qps: number, tail: number): Row => {
    const p50 = (level / qps) * 1000 * 0.95;
    return { level, qps, p50, p99: p50 * tail };
  };
  return [
    detail(
      {
        ...common,
        id: RELEASE_IDS.crowkisFix,
        release: 'v0.2.3',
        name: 'semantic CGET, embedding deferred',
        git_sha: 'c0de2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d',
        tags: { workload: 'semantic CGET', model: 'onnx-minilm' },
        labels: ['fix', 'embedding deferral'],
        note: 'Embeddings are cached for repeats and deferred off the actor’s hot path. The single-writer actor is the next ceiling.',
        created_at: now - 2 * HOUR,
      },
      [
        [1, 48],
        [2, 92],
        [4, 170],
        [8, 250],
        [16, 268],
        [32, 266],
      ].map(([l, q]) => closed(l ?? 0, q ?? 0, 1.6)),
    ),
    detail(
      {
        ...common,
        id: RELEASE_IDS.crowkisBefore,
        release: 'v0.2.2',
        name: 'semantic CGET, inline embed',
        git_sha: '8ac779320affd42f0c1e5d2b3a4f5e6d7c8b9a01',
        tags: { workload: 'semantic CGET', model: 'onnx-minilm' },
        labels: ['baseline'],
        note: 'Every semantic op ran the ONNX embedding inline (~115 ms) behind the single-writer actor: sixteen threads wait in one line. Scaling factor 1.0.',
        created_at: now - 70 * HOUR,
      },
      [
        [1, 8.7],
        [2, 9.0],
        [4, 9.1],
        [8, 9.0],
        [16, 9.0],
      ].map(([l, q]) => closed(l ?? 0, q ?? 0, 1.25)),
    ),
  ];
}

/** Both services' release runs, newest first. */
export function releaseRuns(now: number): RunDetail[] {
  return [...fusilladeRuns(now), ...crowkisRuns(now)].sort((a, b) => b.run.created_at - a.run.created_at);
}
