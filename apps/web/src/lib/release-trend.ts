/**
 * A service's peak throughput release by release, for the trend on its page: per release (oldest
 * first, as the API orders them) the mean of its finished runs' peak QPS, and the lowest and highest
 * run, so repeats show their spread and one noisy run is not read as a trend.
 */
import type { ReleaseGroup } from '@kneeboard/contracts';

export interface TrendPoint {
  release: string;
  /** Mean peak QPS over the release's finished runs. */
  qps: number;
  /** [lowest, highest] run: the spread between repeats. */
  range: [number, number];
  runs: number;
}

export function releaseTrend(releases: readonly ReleaseGroup[]): TrendPoint[] {
  return releases.flatMap((group) => {
    const peaks = group.runs.filter((r) => r.status === 'finished' && r.peak_qps !== null).map((r) => r.peak_qps as number);
    if (peaks.length === 0) return [];
    const qps = peaks.reduce((a, b) => a + b, 0) / peaks.length;
    return [{ release: group.release, qps, range: [Math.min(...peaks), Math.max(...peaks)] as [number, number], runs: peaks.length }];
  });
}
