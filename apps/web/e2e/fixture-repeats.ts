/**
 * Repeated sweeps for group comparisons (`base=ID,ID,ID`, `release:relay@v2.0.0`): service
 * `relay`, swept by concurrency 1…32. v2.0.0 has three runs and v2.1.0 two (about 25% more
 * throughput past the knee); the runs of a release differ by a few percent, as repeats on a busy
 * box do. v2.2.0 has only an aborted run, so a release link to it names a release with no finished run.
 */
import type { RunDetail } from '@kneeboard/contracts';
import { point, run, stepsFor, uuid, withAnalysis } from './fixture-data.ts';

const HOUR = 3_600_000;
const LEVELS = [1, 2, 4, 8, 16, 32];

export const REPEAT_IDS = {
  v200: [uuid(0x301), uuid(0x302), uuid(0x303)],
  v210: [uuid(0x311), uuid(0x312)],
  v220Aborted: uuid(0x321),
} as const;

/** A closed-loop curve with a knee near `knee` and a plateau at `peak` req/s, scaled by a repeat's factor. */
function sweep(id: string, release: string, createdAt: number, peak: number, factor: number, status: 'finished' | 'aborted' = 'finished'): RunDetail {
  const curve = LEVELS.map((level) => {
    const qps = peak * factor * (1 - Math.exp(-level / 6));
    const p50 = (level / qps) * 1000;
    return point(level, { qps, p50_ms: p50, p99_ms: p50 * (1.5 + level / 40) });
  });
  const stepMs = 10_000;
  return withAnalysis({
    run: run({ id, service: 'relay', release, name: '', created_at: createdAt, finished_at: createdAt + LEVELS.length * stepMs, status, labels: [], note: '', agent_host: 'ci-2c', agent_cores: 2 }),
    steps: stepsFor(curve, createdAt, stepMs, 2000),
    curve,
  });
}

export function repeatRuns(now: number): RunDetail[] {
  const v200 = REPEAT_IDS.v200.map((id, i) => sweep(id, 'v2.0.0', now - (30 - i) * HOUR, 4_000, [1, 0.96, 1.03][i] ?? 1));
  const v210 = REPEAT_IDS.v210.map((id, i) => sweep(id, 'v2.1.0', now - (10 - i) * HOUR, 5_000, [1.02, 0.97][i] ?? 1));
  const aborted = sweep(REPEAT_IDS.v220Aborted, 'v2.2.0', now - 3 * HOUR, 5_000, 1, 'aborted');
  return [...v200, ...v210, aborted];
}
