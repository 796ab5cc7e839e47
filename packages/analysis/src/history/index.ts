export { eDivisive, E_DIVISIVE_DEFAULTS, type EDivisiveOptions, type EDivisiveSplit } from './e-divisive.ts';
export { changePoints, CHANGE_POINT_DEFAULTS, type ChangePoint, type ChangePointOptions } from './change-points.ts';
export { groupSeries, SERIES_LABEL, type ComparableSeries, type HistoryRun } from './series.ts';
export { releasePoints, p99At, HISTORY_FEATURES, type FeaturePoint, type HistoryFeature, type ReleasePoint, type RunFeatures, type SeriesPoints } from './release-points.ts';
export { serviceHistory, type FeatureChangePoint, type SeriesHistory } from './series-history.ts';
