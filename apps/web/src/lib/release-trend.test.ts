import { describe, expect, it } from 'vitest';
import type { ReleaseGroup } from '@kneeboard/contracts';
import { releaseTrend } from './release-trend.ts';
import { testRun } from './test-runs.ts';

const summary = (n: number, peak: number | null, status: 'finished' | 'aborted' | 'running' = 'finished') => ({ ...testRun(n), status, levels: 5, requests: 1000, peak_qps: peak });

describe('release trend', () => {
  it('gives each release the mean of its finished runs’ peaks and their spread, skipping releases with none', () => {
    const releases: ReleaseGroup[] = [
      { release: 'v1', first_run_at: 1, runs: [summary(1, 100), summary(2, 120), summary(3, 500, 'aborted')] },
      { release: 'v2', first_run_at: 2, runs: [summary(4, null, 'running')] },
      { release: 'v3', first_run_at: 3, runs: [summary(5, 150)] },
    ];
    expect(releaseTrend(releases)).toEqual([
      { release: 'v1', qps: 110, range: [100, 120], runs: 2 },
      { release: 'v3', qps: 150, range: [150, 150], runs: 1 },
    ]);
  });
});
