import { CHANGE_POINT_DEFAULTS, changePoints, type ChangePointOptions } from './change-points.ts';
import { HISTORY_FEATURES, releasePoints, type HistoryFeature, type RunFeatures, type SeriesPoints } from './release-points.ts';
import type { ComparableSeries, HistoryRun } from './series.ts';
import { groupSeries } from './series.ts';
import { seedFrom } from '../compare/sampler.ts';

export interface FeatureChangePoint {
  feature: HistoryFeature;
  /** Index in the series' releases (oldest first) of the first release after the change. */
  release_index: number;
  release: string;
  /** The release before it that has a value: the comparison across the change is previous → release. */
  previous_release: string;
  ratio: number;
  log_ratio: number;
  ratio_low: number;
  ratio_high: number;
  p_value: number;
}

export interface SeriesHistory {
  series: ComparableSeries;
  points: SeriesPoints;
  change_points: FeatureChangePoint[];
  /**
   * How many releases with a value a feature needs before a change can be found in it at all: two
   * segments of the detector's minimum size. Below it "no change point" means "not looked for".
   */
  change_point_min_releases: number;
}

/**
 * Every comparable series of a service with its per-release points and the change points of each
 * feature. Releases without a usable value for a feature are skipped by its detector and keep their
 * place in the release order. Seeded by the series key, so a history is reproducible.
 */
export function serviceHistory(runs: readonly HistoryRun[], features: readonly RunFeatures[], options: Partial<ChangePointOptions> = {}): SeriesHistory[] {
  return groupSeries(runs).map((series) => {
    const points = releasePoints(series, runs, features);
    const found: FeatureChangePoint[] = [];
    for (const feature of HISTORY_FEATURES) {
      const present = points.releases.flatMap((r, i) => (r.features[feature] ? [{ i, value: r.features[feature].value }] : []));
      const cps = changePoints(
        present.map((p) => p.value),
        { seed: seedFrom(series.key, feature), ...options },
      );
      for (const cp of cps) {
        const at = present[cp.index]!.i;
        const prev = present[cp.index - 1]!.i;
        found.push({
          feature,
          release_index: at,
          release: points.releases[at]!.release,
          previous_release: points.releases[prev]!.release,
          ratio: cp.ratio,
          log_ratio: cp.log_ratio,
          ratio_low: cp.ratio_low,
          ratio_high: cp.ratio_high,
          p_value: cp.p_value,
        });
      }
    }
    return { series, points, change_points: found, change_point_min_releases: 2 * (options.minSize ?? CHANGE_POINT_DEFAULTS.minSize) };
  });
}
