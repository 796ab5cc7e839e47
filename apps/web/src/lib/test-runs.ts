/** Test helper: curve points and run details with neutral defaults, overridden per test. Not imported by app code. */
import type { CurvePoint, Run, RunDetail } from '@kneeboard/contracts';
import { analysisOf, withKnee } from './test-analysis.ts';

export function point(level: number, over: Partial<CurvePoint> = {}): CurvePoint {
  return {
    level,
    requests: 100,
    errors: 0,
    qps: level * 10,
    window_s: 10,
    p50_ms: 10 * level,
    p90_ms: 12 * level,
    p99_ms: 20 * level,
    p999_ms: 30 * level,
    compute_p50_ms: 8,
    compute_p99_ms: 9,
    queue_p50_ms: 1.5,
    queue_p99_ms: 3,
    other_p50_ms: 0.5,
    in_progress: false,
    ...over,
  };
}

export function testRun(n: number, over: Partial<Run> = {}): Run {
  return {
    id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    service: 'svc',
    name: `run ${n}`,
    release: `v${n}`,
    git_sha: null,
    load_model: 'closed',
    parameter: 'concurrency',
    tags: {},
    labels: [],
    note: '',
    agent_host: null,
    agent_cores: null,
    status: 'finished',
    created_at: 1_700_000_000_000 + n * 1000,
    finished_at: 1_700_000_000_000 + n * 1000 + 500,
    ...over,
  };
}

/**
 * Seed 001 (exact search over 1M vectors on an 8-core machine; the fixture run the browser tests
 * use): throughput levels off at 8 and the USL fits it well (R² 0.978, N* ≈ 17.8).
 */
export function seedCurve(): CurvePoint[] {
  const rows: Array<[level: number, qps: number, p50: number]> = [
    [1, 20, 49],
    [2, 39.4, 50.6],
    [4, 70.8, 56.3],
    [8, 100, 77],
    [16, 100, 157],
    [32, 103, 310],
  ];
  return rows.map(([level, qps, p50]) => point(level, { qps, p50_ms: p50 }));
}

/** A run detail as the API sends it: the curve's analysis is the real one; `knee` moves its knee for tests of where knees are drawn. */
export function detail(n: number, curve: CurvePoint[], over: { run?: Partial<Run>; knee?: number } = {}): RunDetail {
  const run = testRun(n, over.run);
  const analysis = analysisOf(curve, run);
  return { run, steps: [], curve, analysis: over.knee === undefined ? analysis : withKnee(analysis, over.knee) };
}
