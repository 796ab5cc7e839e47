import type { ClickHouseClient } from '@clickhouse/client';
import { localName } from '../cluster/render.ts';
import type { Db } from '../db.ts';

/** Every table that holds rows of a run, and its run column; raw events first, so a run half-deleted still answers as a run. */
const RUN_TABLES = [
  ['kb_requests_v1', 'run_id'],
  ['kb_request_seconds_v1', 'run_id'],
  ['kb_batches_v1', 'run_id'],
  ['kb_steps_v1', 'run_id'],
  ['kb_fleet_steps_v1', 'run_id'],
  ['kb_fleet_agents_v1', 'run_id'],
  ['kb_runs_v1', 'id'],
] as const;

/**
 * Deletes a run and everything recorded for it: raw events, the batch ledger, step windows and the
 * run itself. Mutations run synchronously (`mutations_sync`), so when this returns the run is gone
 * and its disk space is being reclaimed. The only way out for a run poisoned by bad data.
 */
export async function deleteRun(db: Db, runId: string): Promise<void> {
  // A Distributed table takes no mutation: on a cluster each node deletes from its local tables
  // (with Keeper, one replica per shard; replication carries the mutation to the others).
  const topo = await db.topology();
  const targets: Array<{ client: ClickHouseClient; table: (t: string) => string }> = topo
    ? topo.nodes.filter((n) => !topo.keeper || n.replica === 1).map((n) => ({ client: db.nodeClient(n), table: localName }))
    : [{ client: db.client, table: (t) => t }];
  for (const [table, column] of RUN_TABLES) {
    for (const target of targets) {
      // Through the write gate: in embedded mode a call's settings become the session's.
      await db.writes.run(() =>
        target.client.command({
          query: `ALTER TABLE ${target.table(table)} DELETE WHERE ${column} = {run_id:UUID}`,
          query_params: { run_id: runId },
          clickhouse_settings: { mutations_sync: '1' },
        }),
      );
    }
  }
}
