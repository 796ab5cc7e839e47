import type { ReleaseGroup, RunSummary } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { releaseViews } from './releases.ts';
import { testRun } from './test-runs.ts';

function summary(n: number, release: string, created: number, status: RunSummary['status'] = 'finished'): RunSummary {
  return { ...testRun(n, { release, created_at: created, status }), levels: 5, requests: 100, peak_qps: 10 };
}

const group = (release: string, runs: RunSummary[]): ReleaseGroup => ({ release, first_run_at: Math.min(...runs.map((r) => r.created_at)), runs });

describe('releaseViews', () => {
  const v1 = group('v1', [summary(2, 'v1', 200), summary(1, 'v1', 100)]);
  const v2 = group('v2', [summary(5, 'v2', 500, 'aborted'), summary(4, 'v2', 400), summary(3, 'v2', 300)]);
  const v3 = group('v3', [summary(6, 'v3', 600, 'running')]);
  const v4 = group('v4', [summary(7, 'v4', 700)]);

  it('puts the newest release on top, runs newest first', () => {
    const views = releaseViews([v1, v2, v3, v4]);
    expect(views.map((v) => v.release)).toEqual(['v4', 'v3', 'v2', 'v1']);
    expect(views[2]?.runs.map((r) => r.created_at)).toEqual([500, 400, 300]);
  });

  it('compares the newest finished run with the previous release’s newest finished run', () => {
    const v2view = releaseViews([v1, v2])[0]!;
    expect(v2view.newestFinished?.created_at).toBe(400); // the aborted run at 500 is skipped
    expect(v2view.previous).toMatchObject({ release: 'v1' });
    expect(v2view.previous?.base.created_at).toBe(200);
    expect(v2view.previous?.href).toBe(`/compare?base=${v1.runs[0]!.id}&head=${v2.runs[1]!.id}`);
  });

  it('skips a release with nothing finished, and offers nothing for the first release', () => {
    const views = releaseViews([v1, v2, v3, v4]);
    expect(views[0]?.previous?.release).toBe('v2'); // v3 has only a running run
    expect(views[1]?.previous).toBeNull(); // v3 itself has nothing finished to compare
    expect(views[3]?.previous).toBeNull();
  });
});
