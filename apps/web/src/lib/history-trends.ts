import { rangeAxis } from '@kneeboard/chart-prep';
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
  /** The y axis: round ticks over the points and their intervals, widened to ±5% of the middle when they lie closer (trendDomain). */
  axis: { domain: [number, number]; ticks: number[] };
  /** Change points: the first release after each, its size as a signed percentage, the comparison across it. */
  changes: Array<{ release: string; label: string; href: string }>;
}

export interface SeriesTrends {
  key: string;
  name: string;
  features: FeatureTrend[];
  /** Releases with a value a feature needs before its change points are looked for (the API's `change_point_min_releases`). */
  minReleases: number;
}

/**
 * The y range of a feature's chart. Values within a fraction of a percent of each other (23.9 and
 * 24.0 ms) left the axis' own choice of ticks a few hundredths apart, which its three-figure labels
 * printed as 23.9, 23.9, 24.0, 24.0: at least ±5% around the middle (then round ticks, rangeAxis)
 * keeps them distinct and shows the change as the small one it is.
 */
export function trendDomain(points: readonly TrendPoint[]): [number, number] {
  const ends = points.flatMap((p) => (p.value === null ? [] : [p.value - (p.spread?.[0] ?? 0), p.value + (p.spread?.[1] ?? 0)]));
  if (ends.length === 0) return [0, 1];
  let lo = Math.min(...ends);
  let hi = Math.max(...ends);
  const mid = (lo + hi) / 2;
  if (hi - lo < 0.1 * mid) {
    lo = Math.min(lo, mid * 0.95);
    hi = Math.max(hi, mid * 1.05);
  }
  return [Math.max(0, lo), hi];
}

/** What the absence of change points means for a series: steady where looked for, or not looked for (too few releases). */
export function noChangeNote(s: SeriesTrends): string {
  const valued = (f: FeatureTrend) => f.points.filter((p) => p.value !== null).length;
  const searched = s.features.filter((f) => valued(f) >= s.minReleases);
  const most = Math.max(0, ...s.features.map(valued));
  const tooFew = `the search needs ${s.minReleases} releases with a value`;
  if (searched.length === 0) return `No change point looked for yet: ${tooFew}, and this series has ${most}. Compare the releases below to see what changed.`;
  if (searched.length === s.features.length) return 'No change point: every feature holds steady across these releases.';
  return `No change point in ${searched.map((f) => f.title.toLowerCase()).join(', ')}; the other features are not looked at yet (${tooFew}).`;
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
        return { feature, title, unit, points, axis: rangeAxis(...trendDomain(points)), changes };
      }).filter((f) => f.points.filter((p) => p.value !== null).length >= 2);
      return { key: s.series.key, name: s.series.name, features, minReleases: s.change_point_min_releases };
    })
    .filter((s) => s.features.length > 0);
}
