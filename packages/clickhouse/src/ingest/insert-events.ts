import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Db } from '../db.ts';

/** The canonical Arrow batch's columns (see @kneeboard/event-wire), as ClickHouse reads them. */
const ARROW_STRUCTURE =
  'level Float64, ts_ms Float64, latency_ms Float64, compute_ms Nullable(Float64), queue_ms Nullable(Float64), status UInt16';

/**
 * One statement for both connections: the run and agent are constants, the six event columns come
 * from the Arrow stream. The token and every other setting the insert relies on are in the query's
 * own SETTINGS clause, so nothing leaks into (or in from) the embedded engine's session. The
 * rollup view's block carries a token derived from the batch's, so a replay is dropped there too
 * (set explicitly rather than trusting a server version's default).
 */
function insertSql(source: string): string {
  return `INSERT INTO kb_requests_v1 (run_id, agent_id, level, ts_ms, latency_ms, compute_ms, queue_ms, status)
    SETTINGS insert_deduplicate = 1, insert_deduplication_token = {token:String}, async_insert = 0,
             deduplicate_blocks_in_dependent_materialized_views = 1
    SELECT {run_id:UUID}, {agent_id:String}, level, ts_ms, latency_ms, compute_ms, queue_ms, status
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

/** The deduplication token of a batch: ClickHouse drops a second insert with the same token. */
export const batchToken = (runId: string, batchId: string) => `${runId}:${batchId}`;

/**
 * Inserts one batch as one atomic block, idempotently: a second insert of the same (run, batch)
 * — a retry, a replay, the same batch sent to another API replica — is dropped by ClickHouse's own
 * deduplication (the token, within the table's non_replicated_deduplication_window). No lock and
 * no lookup: concurrent inserts are safe on a server, and the embedded engine runs statements one
 * at a time with their own settings.
 */
export async function insertEventBatch(db: Db, e: EventInsert): Promise<void> {
  const query_params = { token: batchToken(e.runId, e.batchId), run_id: e.runId, agent_id: e.agentId };
  if (db.config.mode === 'server') {
    const result = await db.client.exec({
      query: `${insertSql(`input('${ARROW_STRUCTURE}')`)} FORMAT ArrowStream`,
      query_params,
      values: Readable.from([Buffer.from(e.arrow.buffer, e.arrow.byteOffset, e.arrow.byteLength)]),
    });
    // The answer has no rows; reading it to the end is what says the insert has finished.
    for await (const chunk of result.stream) void chunk;
    return;
  }
  const file = join(SPILL_DIR, `kneeboard-batch-${process.pid}-${randomUUID()}.arrow`);
  await writeFile(file, e.arrow);
  try {
    await db.client.command({
      query: insertSql(`file({file:String}, 'ArrowStream', '${ARROW_STRUCTURE}')`),
      query_params: { ...query_params, file },
    });
  } finally {
    await unlink(file);
  }
}
