export { compareRuns, DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, type CompareOptions, type LevelSamples, type RunSamples } from './compare-runs.ts';
export { metricDelta, type DeltaInput } from './metric-delta.ts';
export { bootstrapMeans, bootstrapQuantiles, relativeChangeInterval } from './resample.ts';
export { createSampler, seedFrom, type Sampler } from './sampler.ts';
export { formatPercentChange, formatQps, formatLevel } from './format-change.ts';
export { compareMarkdown } from './markdown.ts';
