/**
 * @kneeboard/agent-sdk — what any load generator needs to stream its request timings to Kneeboard:
 * create a run, post step windows, record events (batched, spooled to disk, uploaded in order in
 * the background), finish; re-send what a dead agent left behind; read Server-Timing.
 */
export {
  createRecorder,
  DEFAULT_SPOOL_DIR,
  type Recorder,
  type RecorderOptions,
  type RecorderReport,
  type RecorderStats,
  type RecordedEvent,
  type StepHandle,
  type StepHealthInput,
  type StepConnectionsInput,
} from './create-recorder.ts';
export { replaySpool, type ReplayOptions, type ReplayReport } from './replay.ts';
/** The spool directory's format, for tools that inspect or write it (what `kneeboard flush` replays). */
export { listSpool, RunSpool, type SpooledEntry, type SpooledRun } from './spool.ts';
export { KneeboardApi, type KneeboardApiOptions } from './api-client.ts';
export { ApiHttpError, describeCause, describeStatus, isNetworkError } from './api-errors.ts';
export { DEFAULT_RETRY_POLICY, isRetriable, withRetry, type RetryNotice, type RetryPolicy } from './retry.ts';
export type { Delivery, OutboxStats } from './outbox.ts';
export { batchBody, jsonBody, type WireBody, type WireFormat } from './wire-body.ts';
export {
  createServerTimingParser,
  DEFAULT_SERVER_TIMING_NAMES,
  parseServerTiming,
  type ServerTimingNames,
  type ServerTimingParser,
  type ServerTimings,
} from './server-timing.ts';
export { HTTP_TOKEN } from './http-token.ts';
export { createWallClock, wallClockMs } from './wall-clock.ts';
