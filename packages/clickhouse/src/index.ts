export { describeStorage, type StorageConfig } from './config.ts';
export { openDb, insertSettings, type Db } from './db.ts';
export { migrate, loadMigrations, type Migration } from './migrate.ts';
export { insertRun, getRun, finishRun, listRuns, type ListRunsFilter } from './queries/runs.ts';
export { upsertStep, listSteps } from './queries/steps.ts';
export { ingestBatch, countRequests, type IngestOutcome } from './queries/events.ts';
export { queryCurve, queryRunSummaries, windowSeconds, qps, type RunCurveSummary } from './queries/curve.ts';
