import { formatChange, formatRunGroupRef, type HistoryFeature, type ServiceHistoryResponse } from '@kneeboard/contracts';

/** One release's point of one feature: its value and run-to-run interval, the runs left out of it and why, where a click goes. */
export interface TrendPoint {
  release: string;
  value: number | null;
  /** Below and above the value, for an error bar; null without repeats to estimate it. */
  spread: [number, number] | null;
  /** "run abc12345: Little's law …" for each run left out of the statistics. */
  excluded: string[];
  /** The release's run when it has one; else the comparison with the release before it. */
  href: string;
}

export interface FeatureTrend {
  feature: HistoryFeature;
  title: string;
  unit: string;
  points: TrendPoint[];
  /** Change points: the first release after each, its size as a signed percentage, the comparison across it. */
  changes: Array<{ release: string; label: string; href: string }>;
}

export interface SeriesTrends {
  key: string;
  name: string;
  features: FeatureTrend[];
}

const FEATURES: ReadonlyArray<{ feature: HistoryFeature; title: string; unit: string }> = [
  { feature: 'peak_qps', title: 'Peak throughput', unit: 'req/s' },
  { feature: 'capacity_qps', title: 'Capacity under the SLO', unit: 'req/s' },
  { feature: 'knee_level', title: 'Knee', unit: 'level' },
  { feature: 'p99_at_base_knee_ms', title: 'p99 at the base knee', unit: 'ms' },
];

function compareHref(service: string, base: string, head: string): string {
  const qs = new URLSearchParams([
    ['base', formatRunGroupRef({ kind: 'release', service, release: base })],
    ['head', formatRunGroupRef({ kind: 'release', service, release: head })],
  ]);
  return `/compare?${qs}`;
}

/**
 * The service page's trend charts from the history API: per comparable series (two releases or
 * more), one chart per feature that has two points or more, release order on the x axis.
 */
export function historyTrends(service: string, history: ServiceHistoryResponse): SeriesTrends[] {
  return history.series
    .filter((s) => s.points.releases.length >= 2)
    .map((s) => {
      const releases = s.points.releases;
      const features = FEATURES.map(({ feature, title, unit }) => {
        const points: TrendPoint[] = releases.map((r, i) => {
          const f = r.features[feature] ?? null;
          const firstRun = r.runs[0]?.run_id;
          const href = i === 0 || r.runs.length === 1 ? `/runs/${firstRun}` : compareHref(service, releases[i - 1]!.release, r.release);
          return {
            release: r.release,
            value: f?.value ?? null,
            spread: f && f.low !== null && f.high !== null ? [f.value - f.low, f.high - f.value] : null,
            excluded: r.runs.filter((x) => x.excluded !== null).map((x) => `run ${x.run_id.slice(0, 8)}: ${x.excluded}`),
            href,
          };
        });
        const changes = s.change_points
          .filter((c) => c.feature === feature)
          .map((c) => ({ release: c.release, label: formatChange(c.ratio - 1), href: compareHref(service, c.previous_release, c.release) }));
        return { feature, title, unit, points, changes };
      }).filter((f) => f.points.filter((p) => p.value !== null).length >= 2);
      return { key: s.series.key, name: s.series.name, features };
    })
    .filter((s) => s.features.length > 0);
}
