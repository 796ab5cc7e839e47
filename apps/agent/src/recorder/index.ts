/**
 * The part of the agent any load generator can use to stream request timings to Kneeboard:
 * create a run, post step windows, record events (batched and uploaded in the background), finish.
 * Nothing here knows about the CLI or how load is generated.
 */
export { KneeboardApi, type KneeboardApiOptions } from './api-client.ts';
export { ApiHttpError, describeCause, isNetworkError } from './api-errors.ts';
export { DEFAULT_RETRY_POLICY, type RetryNotice, type RetryPolicy } from './retry.ts';
export { EventRecorder, type EventRecorderOptions, type UploadStats } from './event-recorder.ts';
export { parseServerTiming, type ServerTimings } from './server-timing.ts';
