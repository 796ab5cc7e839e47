export {
  defaultXScale,
  isPowersOfTwo,
  levelDomain,
  levelTicks,
  linearAxis,
  logAxis,
  logSafe,
  LOG_X_SPAN,
  LOG_X_STEP,
  niceCeil,
  rangeAxis,
  sweepXScale,
  type ScaleKind,
} from './scales.ts';
export { fitLine } from './fit-line.ts';
export { LATENCY_METRICS, latencyKeyOf, latencyKeysIn, metricOf, type LatencyKey } from './metrics.ts';
export { capacityHeadline, capacityLabel, sloLines, type SloLine } from './capacity.ts';
