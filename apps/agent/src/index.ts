/** Programmatic use of the agent: run a sweep in-process (the CLI is a thin layer over this). */
export { runSweep, type SweepContext, type SweepResult, type UploadSummary } from './sweep/run-sweep.ts';
export { SweepConfig, type SweepInput } from './sweep/config.ts';
export { SweepError, type SweepErrorKind } from './sweep/sweep-error.ts';
export type { SweepReporter, StepStart, StepProgress } from './sweep/reporter.ts';
export type { LevelSummary } from './load/level-stats.ts';
