export { renderCurveSvg } from './curve-chart.ts';
export { renderCostSvg, type CostChartInput, type CostChartPoint } from './cost-chart.ts';
export { colourFor, COST_COLOURS, PALETTE } from './palette.ts';
export { escapeXml } from './escape.ts';
export type { CapacityMark, ChartSeries, CurveChartInput, LatencyKey, SeriesPoint, SloThresholdMark } from './types.ts';
/** `metrics=` words to the fields drawn, the same mapping the web app's URLs use. */
export { latencyKeyOf } from '@kneeboard/chart-prep';
/** Capacity under SLOs worded and placed as the web app states it. */
export { capacityHeadline, capacityLabel, sloLines } from '@kneeboard/chart-prep';
