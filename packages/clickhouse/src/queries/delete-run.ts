import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { localName } from '../cluster/render.ts';
import { insertSettings, type Db } from '../db.ts';
import { RAW_EVENTS } from '../raw-events.ts';

/** Every table that holds rows of a run, and its run column; the run itself last, so a run half-deleted still answers as a run. */
const RUN_TABLES = [
  [RAW_EVENTS, 'run_id'],
  ['kb_request_seconds_v1', 'run_id'],
  ['kb_request_name_seconds_v1', 'run_id'],
  ['kb_batches_v1', 'run_id'],
  ['kb_steps_v1', 'run_id'],
  ['kb_server_metrics_v1', 'run_id'],
  ['kb_server_metric_steps_v1', 'run_id'],
  ['kb_fleet_steps_v1', 'run_id'],
  ['kb_fleet_agents_v1', 'run_id'],
  ['kb_fleet_log_v1', 'run_id'],
  ['kb_fleet_seen_v1', 'run_id'],
  ['kb_runs_v1', 'id'],
] as const;

/** How often a deletion looks at its mutations. */
const POLL_MS = 100;

/**
 * Records that the run is deleted (kb_deleted_runs_v1), before any of its rows go: from then on
 * getRunSpan answers null for it in every API process, so no process takes a batch, a step or a
 * fleet write for it, whatever it has cached. Kept after the rows are gone (one small row a run).
 */
export async function markRunDeleted(db: Db, runId: string, now = Date.now()): Promise<void> {
  await db.writes.run(() =>
    db.client.insert({ table: 'kb_deleted_runs_v1', values: [{ run_id: runId, deleted_at: now }], format: 'JSONEachRow', clickhouse_settings: insertSettings() }),
  );
}

const Ids = z.array(z.object({ run_id: z.string() }));

/** Runs deleted at or after `sinceMs` (epoch ms): what an API process refuses without reading each run. */
export async function recentlyDeletedRuns(db: Db, sinceMs: number): Promise<string[]> {
  const result = await db.client.query({
    query: `SELECT DISTINCT toString(run_id) AS run_id FROM kb_deleted_runs_v1 WHERE deleted_at >= fromUnixTimestamp64Milli({since:Int64})`,
    query_params: { since: sinceMs },
    format: 'JSONEachRow',
  });
  return Ids.parse(await result.json()).map((r) => r.run_id);
}

/**
 * Deleted runs that still hold rows in some table: a deletion cut short (a full disk, a crash), or
 * a batch another API replica was writing as the run was deleted. Each table is read by its sort
 * key's first column (or, for kb_runs_v1, its id), so this costs a few index lookups per run.
 */
export async function deletedRunsWithRows(db: Db, limit = 100): Promise<string[]> {
  const unions = RUN_TABLES.map(([table, column]) => `SELECT DISTINCT ${column} AS run_id FROM ${table} WHERE ${column} IN (SELECT run_id FROM kb_deleted_runs_v1)`).join('\nUNION DISTINCT\n');
  const result = await db.client.query({
    query: `SELECT toString(run_id) AS run_id FROM (${unions}) LIMIT {limit:UInt32}`,
    query_params: { limit },
    format: 'JSONEachRow',
  });
  return Ids.parse(await result.json()).map((r) => r.run_id);
}

const Count = z.array(z.object({ n: z.coerce.number() }));

/** Rows of the run left in all its tables together (0 once a deletion is complete). */
export async function runRowsLeft(db: Db, runId: string): Promise<number> {
  const counts = RUN_TABLES.map(([table, column]) => `(SELECT count() FROM ${table} WHERE ${column} = {run_id:UUID})`).join(' + ');
  const result = await db.client.query({ query: `SELECT ${counts} AS n`, query_params: { run_id: runId }, format: 'JSONEachRow' });
  return Count.parse(await result.json())[0]?.n ?? 0;
}

const Pending = z.array(z.object({ table: z.string(), mutation_id: z.string(), reason: z.string() }));

interface Target {
  client: ClickHouseClient;
  table: (t: string) => string;
}

/**
 * Waits for the run's mutations on these tables to finish. A mutation that fails (a full disk:
 * rewriting a part needs space) is retried by ClickHouse for ever, holding the disk and its
 * threads; it is killed here and the reason thrown, so a caller answers at once (507) instead of
 * waiting on a deletion that cannot happen.
 */
async function awaitMutations(target: Target, tables: readonly string[], runId: string): Promise<void> {
  for (;;) {
    const result = await target.client.query({
      query: `SELECT table, mutation_id, latest_fail_reason AS reason FROM system.mutations
              WHERE database = currentDatabase() AND table IN {tables:Array(String)} AND NOT is_done AND position(command, {run_id:String}) > 0`,
      query_params: { tables: tables.map(target.table), run_id: runId },
      format: 'JSONEachRow',
    });
    const pending = Pending.parse(await result.json());
    if (pending.length === 0) return;
    const failed = pending.find((m) => m.reason !== '');
    if (failed) {
      for (const m of pending) {
        await target.client.command({
          query: 'KILL MUTATION WHERE database = currentDatabase() AND table = {table:String} AND mutation_id = {id:String}',
          query_params: { table: m.table, id: m.mutation_id },
        });
      }
      throw new Error(`the deletion of run ${runId} could not complete: ${failed.reason.split('\n')[0] ?? ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Deletes every row of the run — raw events, rollup, ledger, steps, fleet rows, and the run itself
 * last — and returns when they are gone. The mutations run in the background and are waited for
 * here by looking at system.mutations, never with `mutations_sync`: the embedded engine runs one
 * statement at a time, so a synchronous mutation held every read and health check behind it (a
 * probe's /healthz waited 13.6 s behind the deletion of a 300k-event run on a full disk, which then
 * failed anyway).
 */
export async function purgeRun(db: Db, runId: string): Promise<void> {
  // A Distributed table takes no mutation: on a cluster each node deletes from its local tables
  // (with Keeper, one replica per shard; replication carries the mutation to the others).
  const topo = await db.topology();
  const targets: Target[] = topo
    ? topo.nodes.filter((n) => !topo.keeper || n.replica === 1).map((n) => ({ client: db.nodeClient(n), table: localName }))
    : [{ client: db.client, table: (t) => t }];
  const data = RUN_TABLES.slice(0, -1);
  const runs = RUN_TABLES.slice(-1);
  for (const tables of [data, runs]) {
    for (const target of targets) {
      for (const [table, column] of tables) {
        // Through the write gate, with the setting in the statement: nothing leaks into the embedded session.
        await db.writes.run(() =>
          target.client.command({
            query: `ALTER TABLE ${target.table(table)} DELETE WHERE ${column} = {run_id:UUID} SETTINGS mutations_sync = 0`,
            query_params: { run_id: runId },
          }),
        );
      }
      await awaitMutations(
        target,
        tables.map(([table]) => table),
        runId,
      );
    }
  }
}

/**
 * Deletes a run and everything recorded for it, the tombstone first (see markRunDeleted). The
 * only way out for a run poisoned by bad data; retention uses it for expired runs.
 */
export async function deleteRun(db: Db, runId: string): Promise<void> {
  await markRunDeleted(db, runId);
  await purgeRun(db, runId);
}
