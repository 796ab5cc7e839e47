import type { Db } from '../db.ts';

/** Every table that holds rows of a run, and its run column; raw events first, so a run half-deleted still answers as a run. */
const RUN_TABLES = [
  ['kb_requests_v1', 'run_id'],
  ['kb_batches_v1', 'run_id'],
  ['kb_steps_v1', 'run_id'],
  ['kb_runs_v1', 'id'],
] as const;

/**
 * Deletes a run and everything recorded for it: raw events, the batch ledger, step windows and the
 * run itself. Mutations run synchronously (`mutations_sync`), so when this returns the run is gone
 * and its disk space is being reclaimed. The only way out for a run poisoned by bad data.
 */
export async function deleteRun(db: Db, runId: string): Promise<void> {
  for (const [table, column] of RUN_TABLES) {
    // Through the write gate: in embedded mode a call's settings become the session's.
    await db.writes.run(() =>
      db.client.command({
        query: `ALTER TABLE ${table} DELETE WHERE ${column} = {run_id:UUID}`,
        query_params: { run_id: runId },
        clickhouse_settings: { mutations_sync: '1' },
      }),
    );
  }
}
