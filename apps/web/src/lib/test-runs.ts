/** Test helper: curve points and run details with neutral defaults, overridden per test. Not imported by app code. */
import type { CurvePoint, Run, RunDetail } from '@kneeboard/contracts';
import { analysis } from './test-analysis.ts';

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

export function detail(n: number, curve: CurvePoint[], over: { run?: Partial<Run>; knee?: number } = {}): RunDetail {
  const knee = over.knee === undefined ? null : { level: over.knee, method: 'kneedle' as const, reason: 'bends' };
  return { run: testRun(n, over.run), steps: [], curve, analysis: analysis({ knee }) };
}
