export { describeStorage, type StorageConfig } from './config.ts';
export { openDb, insertSettings, type Db } from './db.ts';
export { migrate, loadMigrations, type Migration } from './migrate.ts';
export { RAW_EVENTS, toMicros, storedMs, microsSql } from './raw-events.ts';
export { REQUEST_SECONDS } from './request-seconds.ts';
export { insertRun, getRun, finishRun, updateRun, listRuns, type ListRunsFilter } from './queries/runs.ts';
export { deleteRun, purgeRun, markRunDeleted, recentlyDeletedRuns, deletedRunsWithRows, runRowsLeft } from './queries/delete-run.ts';
export { listServices } from './queries/services.ts';
export { createLink, resolveLink } from './queries/links.ts';
export { upsertStep, listSteps } from './queries/steps.ts';
export { insertServerMetrics, queryServerMetrics, type StoredStepMetrics } from './queries/server-metrics.ts';
export { countRequests, countRollupRequests } from './queries/events.ts';
export { getRunSpan, type RunSpan } from './queries/run-span.ts';
export { queryRunChangeMarks } from './queries/run-changes.ts';
export { listExpiredRuns, type ExpiryRule } from './queries/expired-runs.ts';
export { insertEventBatch, insertEventGroup, removeOrphanSpills, batchToken, type EventInsert } from './ingest/insert-events.ts';
export { readLedger, writeLedger, reconcileLedger, ledgerMatchesEvents, type LedgerEntry, type LedgerRow } from './ingest/batch-ledger.ts';
export { repairRollup, runsWithSuspectRollup } from './ingest/rollup-repair.ts';
export { DeferredWriter } from './ingest/deferred-writer.ts';
export { openEventStore, type EventStoreOptions } from './store/open-event-store.ts';
export {
  BatchIdReused,
  SharedInsertFailed,
  type Arrival,
  type BatchColumns,
  type EventStore,
  type LiveFigures,
  type Recovered,
  type StoreBatch,
  type StoreOutcome,
} from './store/event-store.ts';
export { GroupCommit, type GroupMember, type GroupCommitOptions } from './store/group-commit.ts';
export { queryExactCurve, windowSeconds, qps } from './queries/curve.ts';
export { queryRollupCurve, queryLevelStates } from './queries/curve-rollup.ts';
export type { RanksAnsweredBy } from './queries/rollup-sketch.ts';
export { queryRollupLevelSamples } from './queries/samples-rollup.ts';
export { queryCurve, EXACT_UP_TO_REQUESTS } from './queries/run-curve.ts';
export { queryNameCurves } from './queries/name-curves.ts';
export { queryRunNames, type RunName } from './queries/run-names.ts';
export { queryRunSummaries, type RunCurveSummary } from './queries/run-summaries.ts';
export { queryLevelSamples, queryComparisonSamples, type LevelSampleRows } from './queries/samples.ts';
export { queryNameLevelSamples } from './queries/name-samples.ts';
export { listTokens, writeToken, revokeToken, TokenRow } from './queries/tokens.ts';
export { insertDelivery, listDeliveries, listWebhooks, notifiedRuns, writeWebhook, WebhookRow } from './queries/webhooks.ts';
export { queryLevelDetail } from './queries/level-detail.ts';
export { queryRunTimeline, timelineBucketSeconds } from './queries/run-timeline.ts';
export { timelineBucketMs, sliceRange, logEdges, HISTOGRAM_BUCKETS } from './queries/level-buckets.ts';
export { writeFleetAgent, writeFleetSteps, readRunAgents, type FleetAgentRow, type FleetStepRow } from './queries/fleet.ts';
export { appendFleetLog, readFleetLog, recentFleetPlans, markFleetSeen, readFleetSeen, type FleetLogRow } from './queries/fleet-log.ts';
export { runsDataVersion, readRunState, serviceDataVersion, versionKey, NO_DATA, type RunVersion } from './queries/run-versions.ts';
export { cacheOf, VersionedCache } from './versioned-cache.ts';
