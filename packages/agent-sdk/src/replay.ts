import { IngestResponse } from '@kneeboard/contracts';
import type { KneeboardApi } from './api-client.ts';
import { DEFAULT_RETRY_POLICY, isRetriable, withRetry, type RetryPolicy } from './retry.ts';
import { entryPath, listSpool, RunSpool } from './spool.ts';
import { jsonBody } from './wire-body.ts';

export interface ReplayOptions {
  api: KneeboardApi;
  spoolDir: string;
  /** Per call; default: the usual backoff, giving up after 60 s of failures. */
  retry?: RetryPolicy;
  /**
   * A run whose agent died before finishing it would stay "running" for ever: after its leftovers
   * are delivered it is finished as `aborted`. Default true.
   */
  finishOrphans?: boolean;
  onProgress?: (message: string) => void;
}

export interface ReplayReport {
  runs: number;
  /** API calls delivered (batches, step windows, finishes). */
  delivered: number;
  /** Events in the delivered batches; `duplicate` ones were already stored and were not counted twice. */
  events: number;
  duplicateBatches: number;
  /** Calls the API refused for good; their files are moved to `<spoolDir>/rejected/`. */
  rejected: number;
  /** Calls still in the spool because the API could not be reached. */
  remaining: number;
  /** Run directories left alone because a live process owns them. */
  skipped: number;
}

/**
 * Re-sends what earlier agents left in the spool directory, each run's calls in their original
 * order, with their original batch ids — the API stores a batch it already has only once. A file
 * is deleted after the API's 2xx. Directories owned by a live process are skipped.
 */
export async function replaySpool(o: ReplayOptions): Promise<ReplayReport> {
  const report: ReplayReport = { runs: 0, delivered: 0, events: 0, duplicateBatches: 0, rejected: 0, remaining: 0, skipped: 0 };
  const retry = o.retry ?? DEFAULT_RETRY_POLICY;
  for (const run of await listSpool(o.spoolDir)) {
    if (run.liveOwner !== null) {
      report.skipped += 1;
      o.onProgress?.(`skipping ${run.runId}: process ${run.liveOwner.pid} is still writing it`);
      continue;
    }
    report.runs += 1;
    const spool = await RunSpool.open(o.spoolDir, run.runId);
    let finished = false;
    let reachable = true;
    for (const [i, entry] of run.entries.entries()) {
      const body = await spool.read(entry.file);
      const path = entryPath(run.runId, entry.kind, body);
      try {
        const answer = await withRetry(() => o.api.postOnce(path, body.bytes, body.contentType), retry);
        if (entry.kind === 'events') {
          const res = IngestResponse.parse(answer);
          if (res.duplicate) report.duplicateBatches += 1;
          else report.events += res.accepted;
        }
        if (entry.kind === 'finish') finished = true;
        report.delivered += 1;
        await spool.remove(entry.file);
      } catch (err) {
        if (isRetriable(err)) {
          // The API is away again: keep this and the rest for the next replay, in order.
          report.remaining += run.entries.length - i;
          reachable = false;
          o.onProgress?.(`could not reach the API for ${run.runId}; ${run.entries.length - i} calls stay in the spool`);
          break;
        }
        report.rejected += 1;
        o.onProgress?.(`the API refused ${entry.file}: ${(err as Error).message}; moved aside`);
        await spool.reject(entry.file);
      }
    }
    if (reachable && !finished && (o.finishOrphans ?? true)) {
      try {
        // Only a run still marked running: the agent may have died just after finishing it.
        if ((await withRetry(() => o.api.runStatus(run.runId), retry)) === 'running') {
          await withRetry(() => o.api.postOnce(entryPath(run.runId, 'finish', jsonBody({})), JSON.stringify({ status: 'aborted' })), retry);
          o.onProgress?.(`run ${run.runId} had no finish: marked aborted`);
        }
      } catch (err) {
        if (isRetriable(err)) reachable = false;
        o.onProgress?.(`could not finish run ${run.runId}: ${(err as Error).message}`);
      }
    }
    await spool.close();
    if (!reachable) break;
  }
  return report;
}
