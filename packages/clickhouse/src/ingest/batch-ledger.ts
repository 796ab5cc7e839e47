import { z } from 'zod';
import { insertSettings, type Db } from '../db.ts';

/** What the API remembers of each stored batch: enough to recognise a replay, and a reused id. */
export interface LedgerEntry {
  run_id: string;
  batch_id: string;
  agent_id: string;
  events: number;
  content_hash: string;
  received_at: number;
}

const LedgerRow = z
  .object({ batch_id: z.string(), events: z.coerce.number(), content_hash: z.string(), received_ms: z.coerce.number() })
  .transform(({ received_ms, ...r }) => ({ ...r, received_at: received_ms }));
export type LedgerRow = z.infer<typeof LedgerRow>;

/** Records many batches in one insert (kb_batches_v1 is a ReplacingMergeTree: a batch recorded twice is one row). */
export async function writeLedger(db: Db, entries: LedgerEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db.writes.run(() =>
    db.client.insert({ table: 'kb_batches_v1', values: entries, format: 'JSONEachRow', clickhouse_settings: insertSettings() }),
  );
}

/** A run's recorded batches received at or after `sinceMs` (epoch ms), oldest first. */
export async function readLedger(db: Db, runId: string, sinceMs = 0): Promise<LedgerRow[]> {
  const result = await db.client.query({
    // The alias must not be `received_at`: in ClickHouse an alias shadows the column in WHERE too.
    query: `SELECT batch_id, events, content_hash, toUnixTimestamp64Milli(received_at) AS received_ms
            FROM kb_batches_v1
            WHERE run_id = {run_id:UUID} AND received_at >= fromUnixTimestamp64Milli({since:Int64})
            ORDER BY received_ms`,
    query_params: { run_id: runId, since: sinceMs },
    format: 'JSONEachRow',
  });
  return z.array(LedgerRow).parse(await result.json());
}
