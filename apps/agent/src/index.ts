/** Programmatic use of the agent: run a sweep in-process (the CLI is a thin layer over this). */
export { runSweep, type SweepContext, type SweepResult, type UploadSummary } from './sweep/run-sweep.ts';
export { SweepConfig, type SweepInput } from './sweep/config.ts';
export { SweepError, type SweepErrorKind } from './sweep/sweep-error.ts';
export type { SweepReporter, StepStart, StepProgress } from './sweep/reporter.ts';
export type { LevelSummary } from './load/level-stats.ts';
export { runImport, type ImportResult, type ImportReporter, type ImportProgress } from './import/run-import.ts';
export { IMPORT_TOOLS, toolSpec } from './import/tools.ts';
export { runFollow } from './import/follow.ts';
export { k6ByteParser, k6Parser } from './import/k6.ts';
export { readByteLines } from './import/byte-lines.ts';
export { newParsed, type ByteLineParser, type LineParser, type Parsed, type ToolSpec } from './import/records.ts';
/** The native engine's binary and its frame reader, for benches that drive the engine alone. */
export { DEFAULT_ENGINE_BINARY } from './native/engine-binary.ts';
export { FrameReader } from './native/frames.ts';
