import { describe, expect, it } from 'vitest';
import type { ReleaseGroup } from '@kneeboard/contracts';
import { releaseTrends } from './release-trend.ts';
import { testRun } from './test-runs.ts';

const summary = (n: number, peak: number | null, status: 'finished' | 'aborted' | 'running' = 'finished', over: { load_model?: 'closed' | 'open'; parameter?: string } = {}) => ({
  ...testRun(n),
  load_model: 'closed' as const,
  parameter: 'concurrency',
  ...over,
  status,
  levels: 5,
  requests: 1000,
  peak_qps: peak,
});

describe('release trend', () => {
  it('gives each release the mean of its finished runs’ peaks and their spread, skipping releases with none', () => {
    const releases: ReleaseGroup[] = [
      { release: 'v1', first_run_at: 1, runs: [summary(1, 100), summary(2, 120), summary(3, 500, 'aborted')] },
      { release: 'v2', first_run_at: 2, runs: [summary(4, null, 'running')] },
      { release: 'v3', first_run_at: 3, runs: [summary(5, 150)] },
    ];
    expect(releaseTrends(releases)).toEqual([
      {
        key: 'closed:concurrency',
        label: 'closed loop · concurrency',
        points: [
          { release: 'v1', qps: 110, range: [100, 120], runs: 2 },
          { release: 'v3', qps: 150, range: [150, 150], runs: 1 },
        ],
      },
    ]);
  });

  it('never joins an open-loop rate sweep with closed-loop concurrency peaks, nor sweeps of different parameters', () => {
    const releases: ReleaseGroup[] = [
      { release: 'v1', first_run_at: 1, runs: [summary(1, 100), summary(2, 900, 'finished', { load_model: 'open', parameter: 'rate' })] },
      { release: 'v2', first_run_at: 2, runs: [summary(3, 120), summary(4, 40, 'finished', { parameter: 'workers' })] },
      { release: 'v3', first_run_at: 3, runs: [summary(5, 950, 'finished', { load_model: 'open', parameter: 'rate' })] },
    ];
    const trends = releaseTrends(releases);
    expect(trends.map((t) => [t.key, t.points.map((p) => `${p.release}=${p.qps}`)])).toEqual([
      ['closed:concurrency', ['v1=100', 'v2=120']],
      ['open:rate', ['v1=900', 'v3=950']],
      ['closed:workers', ['v2=40']],
    ]);
  });
});
