import { z } from 'zod';
import type { EventBatch } from '@kneeboard/contracts';
import { insertSettings, type Db } from '../db.ts';

export interface IngestOutcome {
  accepted: number;
  duplicate: boolean;
}

const REQUEST_COLUMNS = [
  { name: 'run_id', type: 'UUID' },
  { name: 'level', type: 'Float64' },
  { name: 'agent_id', type: 'LowCardinality(String)' },
  { name: 'ts_ms', type: 'Float64' },
  { name: 'latency_ms', type: 'Float64' },
  { name: 'compute_ms', type: 'Nullable(Float64)' },
  { name: 'queue_ms', type: 'Nullable(Float64)' },
  { name: 'status', type: 'UInt16' },
];

const Count = z.array(z.object({ n: z.coerce.number() }));

async function batchSeen(db: Db, runId: string, batchId: string): Promise<boolean> {
  const result = await db.client.query({
    query: 'SELECT count() AS n FROM kb_batches_v1 WHERE run_id = {run_id:UUID} AND batch_id = {batch_id:String}',
    query_params: { run_id: runId, batch_id: batchId },
    format: 'JSONEachRow',
  });
  return (Count.parse(await result.json())[0]?.n ?? 0) > 0;
}

/**
 * Stores a batch exactly once. The rows go in as one columnar JSON insert (one atomic block, no
 * per-row objects) carrying the batch id as deduplication token; the batch is then recorded in
 * kb_batches_v1. A replay is recognised by that record, and, if the process died between the two
 * inserts, by the token within the table's deduplication window. The check and both inserts run
 * inside the write queue, so two copies of one batch arriving together cannot both pass the check.
 */
export async function ingestBatch(db: Db, runId: string, batch: EventBatch, now = Date.now()): Promise<IngestOutcome> {
  return db.writes.run(async () => {
    if (await batchSeen(db, runId, batch.batch_id)) return { accepted: 0, duplicate: true };
    const n = batch.level.length;
    await db.client.insert({
      table: 'kb_requests_v1',
      // The client encodes no plain JSONColumns; the WithMetadata variant is the same columnar body.
      format: 'JSONColumnsWithMetadata',
      values: {
        meta: REQUEST_COLUMNS,
        data: {
          run_id: new Array<string>(n).fill(runId),
          level: batch.level,
          agent_id: new Array<string>(n).fill(batch.agent_id),
          ts_ms: batch.ts_ms,
          latency_ms: batch.latency_ms,
          compute_ms: batch.compute_ms,
          queue_ms: batch.queue_ms,
          status: batch.status,
        },
      },
      clickhouse_settings: insertSettings(`${runId}:${batch.batch_id}`),
    });
    await db.client.insert({
      table: 'kb_batches_v1',
      format: 'JSONEachRow',
      values: [{ run_id: runId, batch_id: batch.batch_id, agent_id: batch.agent_id, events: n, received_at: now }],
      clickhouse_settings: insertSettings(),
    });
    return { accepted: n, duplicate: false };
  });
}

export async function countRequests(db: Db, runId: string): Promise<number> {
  const result = await db.client.query({
    query: 'SELECT count() AS n FROM kb_requests_v1 WHERE run_id = {run_id:UUID}',
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  return Count.parse(await result.json())[0]?.n ?? 0;
}
