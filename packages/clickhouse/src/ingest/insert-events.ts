import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import { localName } from '../cluster/render.ts';
import { shardOf } from '../cluster/topology.ts';
import type { Db } from '../db.ts';
import { microsSql, nullableMicrosSql, RAW_EVENTS } from '../raw-events.ts';

/**
 * The canonical Arrow batch's columns (see @kneeboard/event-wire), as ClickHouse reads them. A
 * batch without names has no `name` column: it reads as '' (input_format_arrow_allow_missing_columns),
 * so batches with and without names share one statement and one spill-file glob.
 */
const ARROW_STRUCTURE =
  'level Float64, ts_ms Float64, latency_ms Float64, compute_ms Nullable(Float64), queue_ms Nullable(Float64), status UInt16, name String';

/**
 * One statement for both connections: the run and agent are constants, the six event columns come
 * from the Arrow stream, times rounded to the integer microseconds the table keeps (toMicros). The token and every other setting the insert relies on are in the query's
 * own SETTINGS clause, so nothing leaks into (or in from) the embedded engine's session. The
 * rollup view's block carries a token derived from the batch's, so a replay is dropped there too
 * (set explicitly rather than trusting a server version's default).
 */
function insertSql(source: string, table = RAW_EVENTS, runAndAgent = '{run_id:UUID}, {agent_id:String}'): string {
  return `INSERT INTO ${table} (run_id, agent_id, level, ts_us, latency_us, compute_us, queue_us, status, name)
    SETTINGS insert_deduplicate = 1, insert_deduplication_token = {token:String}, async_insert = 0,
             deduplicate_blocks_in_dependent_materialized_views = 1, input_format_arrow_allow_missing_columns = 1
    SELECT ${runAndAgent}, level, toInt64(${microsSql('ts_ms')}), toUInt64(${microsSql('latency_ms')}),
           ${nullableMicrosSql('compute_ms')}, ${nullableMicrosSql('queue_ms')}, status, name
    FROM ${source}`;
}

/** chDB takes no binary request body: the stream goes through a file in memory-backed /dev/shm where there is one. */
const SPILL_DIR = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

export interface EventInsert {
  runId: string;
  batchId: string;
  agentId: string;
  /** The batch as one canonical Arrow IPC stream (`encodeArrowColumns`). */
  arrow: Uint8Array;
}

/**
 * Where a batch's rows go. One server: its table. A cluster: the local table of one shard chosen
 * by the batch's token — a run's batches spread over every shard, and a replayed batch lands on
 * the shard that has its first copy, whose own deduplication drops it (an insert through the
 * Distributed table would split the batch across shards, and a retry after a partial failure
 * would store part of it twice). With replicas, the shard's first replica takes it and Keeper
 * replicates it, deduplicated by the same token.
 */
async function shardTarget(db: Db, token: string): Promise<{ client: ClickHouseClient; table: string }> {
  const topo = await db.topology();
  if (!topo) return { client: db.client, table: RAW_EVENTS };
  const shard = shardOf(token, topo.shards);
  const node = topo.nodes.find((n) => n.shard === shard) as (typeof topo.nodes)[number];
  return { client: db.nodeClient(node), table: localName(RAW_EVENTS) };
}

/** The deduplication token of a batch: ClickHouse drops a second insert with the same token. */
export const batchToken = (runId: string, batchId: string) => `${runId}:${batchId}`;

/**
 * A ClickHouse server's insert of one batch as one atomic block, idempotently: a second insert of
 * the same (run, batch) — a retry, a replay, the same batch sent to another API replica — is
 * dropped by ClickHouse's own deduplication (the token, within the table's
 * non_replicated_deduplication_window). No lock and no lookup: concurrent inserts are safe. (The
 * embedded engine takes no request body: its batches go through insertEventGroup.)
 */
export async function insertEventBatch(db: Db, e: EventInsert): Promise<void> {
  const token = batchToken(e.runId, e.batchId);
  const target = await shardTarget(db, token);
  const result = await target.client.exec({
    query: `${insertSql(`input('${ARROW_STRUCTURE}')`, target.table)} FORMAT ArrowStream`,
    query_params: { token, run_id: e.runId, agent_id: e.agentId },
    values: Readable.from([Buffer.from(e.arrow.buffer, e.arrow.byteOffset, e.arrow.byteLength)]),
  });
  // The answer has no rows; reading it to the end is what says the insert has finished.
  for await (const chunk of result.stream) void chunk;
}

/** A spill file's name: a UUID, so a list of them is a glob with no metacharacter in it. */
const spillName = () => `kneeboard-batch-${process.pid}-${randomUUID()}.arrow`;
const SPILL_OWNER = /^kneeboard-batch-(\d+)-/;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the spill files of processes that are gone. A process killed mid-insert (SIGKILL, the
 * OOM killer) leaves its group's files in memory-backed /dev/shm, about 1 MB per batch, for as long
 * as the machine runs. Returns how many were removed.
 */
export async function removeOrphanSpills(dir = SPILL_DIR): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir)) {
    const pid = Number(SPILL_OWNER.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || pid === process.pid || isRunning(pid)) continue;
    await rm(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

/** Once per process, before its first spill. */
let orphansSwept: Promise<unknown> | undefined;

/**
 * The embedded engine's insert (its store's group commit): several batches (of any runs and agents) as ONE insert under one token.
 *
 * Why: every insert costs the engine a fixed ~15 ms of CPU (a part in each table, the rollup view's
 * pipeline, and the merges of those parts later), against ~0.3 µs per row: measured with the
 * rollup view on 26.7 over 4M events, merges included, 20,000-row inserts cost 1.45 µs of CPU per
 * event, 80,000-row inserts 0.59 µs. Each
 * batch goes to its own spill file; the insert reads them all with one glob, and `_file` says
 * which batch (so which run and agent) a row came from. The engine deduplicates the group as a
 * whole under `token`: exactly-once per batch is then the ledger's job (written first, see
 * reconcileLedger).
 */
export async function insertEventGroup(db: Db, token: string, batches: readonly EventInsert[]): Promise<void> {
  orphansSwept ??= removeOrphanSpills().catch(() => 0);
  await orphansSwept;
  const names = batches.map(spillName);
  const one = batches.length === 1;
  try {
    await Promise.all(batches.map((b, i) => writeFile(join(SPILL_DIR, names[i] as string), b.arrow)));
    await db.client.command({
      query: insertSql(
        `file({path:String}, 'ArrowStream', '${ARROW_STRUCTURE}')`,
        RAW_EVENTS,
        one
          ? '{run_id:UUID}, {agent_id:String}'
          : `toUUID(transform(_file, {names:Array(String)}, {runs:Array(String)}, '')), transform(_file, {names:Array(String)}, {agents:Array(String)}, '')`,
      ),
      query_params: {
        token,
        path: join(SPILL_DIR, one ? (names[0] as string) : `{${names.join(',')}}`),
        ...(one
          ? { run_id: batches[0]?.runId, agent_id: batches[0]?.agentId }
          : { names, runs: batches.map((b) => b.runId), agents: batches.map((b) => b.agentId) }),
      },
    });
  } finally {
    // Every name, written or not (a full /dev/shm fails some writes): none is left behind.
    await Promise.all(names.map((n) => rm(join(SPILL_DIR, n), { force: true })));
  }
}
