export { compareGroups, compareRuns, DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, type CompareOptions, type LevelSamples, type RunGroup, type RunSamples } from './compare-runs.ts';
export { metricDelta, type DeltaInput } from './metric-delta.ts';
export { bootstrapMeans, bootstrapQuantiles, relativeChangeInterval } from './resample.ts';
export { groupReplicates } from './group-replicates.ts';
export { levelFlags } from './level-flags.ts';
export { runToRunNoise, type RunToRunNoise, type RepeatedValues } from './run-to-run.ts';
export { createSampler, seedFrom, type Sampler } from './sampler.ts';
export { compareMarkdown } from './markdown.ts';
