export { renderCurveSvg } from './curve-chart.ts';
export { colourFor, PALETTE } from './palette.ts';
export { escapeXml } from './escape.ts';
export type { ChartSeries, CurveChartInput, LatencyKey, SeriesPoint } from './types.ts';
/** `metrics=` words to the fields drawn, the same mapping the web app's URLs use. */
export { latencyKeyOf } from '@kneeboard/chart-prep';
