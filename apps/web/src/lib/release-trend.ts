/**
 * A service's peak throughput release by release, for the trend on its page: per release (oldest
 * first, as the API orders them) the mean of its finished runs' peak QPS, and the lowest and highest
 * run, so repeats show their spread and one noisy run is not read as a trend.
 *
 * One series per way of loading: an open-loop rate sweep's peak and a closed-loop concurrency
 * sweep's peak are different measurements (offered rate vs what N clients reach), and so are sweeps
 * of different parameters (workers vs concurrency). A line between them would read as a change of
 * the service, so they are never joined: each load model and parameter is its own series.
 */
import type { ReleaseGroup, RunSummary } from '@kneeboard/contracts';

export interface TrendPoint {
  release: string;
  /** Mean peak QPS over the release's finished runs. */
  qps: number;
  /** [lowest, highest] run: the spread between repeats. */
  range: [number, number];
  runs: number;
}

export interface TrendSeries {
  /** `closed:concurrency` */
  key: string;
  /** `closed loop · concurrency` */
  label: string;
  points: TrendPoint[];
}

const seriesKey = (r: Pick<RunSummary, 'load_model' | 'parameter'>) => `${r.load_model}:${r.parameter}`;

/** The series in the order their first release appears (oldest first), each with its releases in order. */
export function releaseTrends(releases: readonly ReleaseGroup[]): TrendSeries[] {
  const series = new Map<string, TrendSeries>();
  for (const group of releases) {
    const byKey = new Map<string, number[]>();
    for (const r of group.runs) {
      if (r.status !== 'finished' || r.peak_qps === null) continue;
      const key = seriesKey(r);
      if (!series.has(key)) series.set(key, { key, label: `${r.load_model} loop · ${r.parameter}`, points: [] });
      byKey.set(key, [...(byKey.get(key) ?? []), r.peak_qps]);
    }
    for (const [key, peaks] of byKey) {
      const qps = peaks.reduce((a, b) => a + b, 0) / peaks.length;
      series.get(key)?.points.push({ release: group.release, qps, range: [Math.min(...peaks), Math.max(...peaks)], runs: peaks.length });
    }
  }
  return [...series.values()];
}
