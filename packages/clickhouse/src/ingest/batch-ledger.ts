import { z } from 'zod';
import { insertSettings, type Db } from '../db.ts';
import { RAW_EVENTS } from '../raw-events.ts';

/** What the API remembers of each stored batch: enough to recognise a replay, and a reused id. */
export interface LedgerEntry {
  run_id: string;
  batch_id: string;
  agent_id: string;
  events: number;
  content_hash: string;
  received_at: number;
  /** The coalesced insert this batch went in with (its token); absent for a batch inserted alone. */
  group_token?: string;
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

const Shortfall = z.object({
  stored: z.coerce.number(),
  recorded: z.coerce.number(),
  group_token: z.string(),
  group_events: z.coerce.number(),
  group_batches: z.array(z.string()),
});

/**
 * Makes a run's ledger agree with its events after a process died between writing a group's
 * ledger rows and its events (embedded engine: one writer, one group in flight at a time, ledger
 * first). If the run has fewer stored events than the ledger records, and the difference is
 * exactly the newest group's events, that group never landed: its rows are removed, so its
 * batches, sent again, are stored instead of answered `duplicate`. Any other difference is left
 * alone (not this failure). Returns the batch ids removed.
 */
export async function reconcileLedger(db: Db, runId: string): Promise<string[]> {
  const result = await db.client.query({
    query: `WITH ledger AS (SELECT batch_id, argMax(events, received_at) AS events, argMax(group_token, received_at) AS group_token, max(received_at) AS at
                            FROM kb_batches_v1 WHERE run_id = {run_id:UUID} GROUP BY batch_id),
                 newest AS (SELECT group_token, sum(events) AS group_events, arraySort(groupArray(batch_id)) AS group_batches
                            FROM ledger WHERE group_token != '' GROUP BY group_token ORDER BY max(at) DESC LIMIT 1)
            SELECT (SELECT count() FROM ${RAW_EVENTS} WHERE run_id = {run_id:UUID}) AS stored,
                   (SELECT sum(events) FROM ledger) AS recorded,
                   group_token, group_events, group_batches
            FROM newest`,
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  const rows = z.array(Shortfall).parse(await result.json());
  const r = rows[0];
  if (!r || r.recorded - r.stored !== r.group_events || r.group_events === 0) return [];
  await db.writes.run(() =>
    db.client.command({
      query: `DELETE FROM kb_batches_v1 WHERE run_id = {run_id:UUID} AND group_token = {group:String}`,
      query_params: { run_id: runId, group: r.group_token },
    }),
  );
  return r.group_batches;
}

const Agreement = z.object({ stored: z.coerce.number(), recorded: z.coerce.number() });

/**
 * Whether the run's stored events are exactly what its ledger records (each batch's newest row).
 * After a failed insert whose ledger rows reconcileLedger kept, this says the events landed after
 * all (the raw part was written before the failure): the batches are stored.
 */
export async function ledgerMatchesEvents(db: Db, runId: string): Promise<boolean> {
  const result = await db.client.query({
    query: `SELECT (SELECT count() FROM ${RAW_EVENTS} WHERE run_id = {run_id:UUID}) AS stored,
                   (SELECT sum(events) FROM (SELECT argMax(events, received_at) AS events FROM kb_batches_v1
                                             WHERE run_id = {run_id:UUID} GROUP BY batch_id)) AS recorded`,
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  const [row] = z.array(Agreement).parse(await result.json());
  return row !== undefined && row.stored === row.recorded;
}
