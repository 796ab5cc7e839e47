import { z } from 'zod';
import type { Db } from '../db.ts';
import { RAW_EVENTS } from '../raw-events.ts';
import { REQUEST_SECONDS } from '../request-seconds.ts';
import { successStatusSql } from '../queries/success-status.ts';

/**
 * The rollup row of a group of raw rows: the SELECT of the views 100 (rows without a name, into
 * kb_request_seconds_v1) and 094 (`byName`, named rows into kb_request_name_seconds_v1), here with
 * a WHERE. test/rollup-repair.int.test.ts checks that rows rebuilt with it equal, state for state,
 * the rows the views wrote.
 */
function rollupSelectSql(where: string, byName = false): string {
  const ok = successStatusSql('status');
  return `SELECT
    run_id,
    level,${byName ? '\n    name,' : ''}
    toInt64(floor(ts_ms / 1000)) AS second,
    count() AS requests,
    countIf(${ok}) AS ok,
    max(ts_ms) AS last_ts_ms,
    sumIf(latency_ms, ${ok}) AS ok_latency_sum,
    countIf(${ok} AND compute_ms IS NOT NULL) AS compute_n,
    countIf(${ok} AND queue_ms IS NOT NULL) AS queue_n,
    countIf(${ok} AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
    quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, ${ok}) AS latency,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, ${ok} AND compute_ms IS NOT NULL) AS compute,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, ${ok} AND queue_ms IS NOT NULL) AS queue,
    quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
                                   ${ok} AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other
  FROM ${RAW_EVENTS}
  WHERE ${where} AND name ${byName ? '!=' : '='} ''
  GROUP BY run_id, level,${byName ? ' name,' : ''} second`;
}

const SuspectRow = z.object({ run_id: z.string() });

/**
 * Runs whose rollup total differs from the events their batch ledger records: the only runs a
 * crash can have left with a rollup that disagrees with their raw rows. Reads the two small
 * tables (the ledger, one row per batch; the rollup, one row per run, level and second), never the
 * raw events, so it is cheap enough for every start-up. On the embedded engine the ledger is
 * written before a group's events (so it is never below the raw rows); a run whose ledger and
 * rollup agree has raw rows that agree too.
 */
export async function runsWithSuspectRollup(db: Db): Promise<string[]> {
  const result = await db.client.query({
    query: `SELECT toString(run_id) AS run_id
            FROM (SELECT run_id, sum(events) AS recorded
                  FROM (SELECT run_id, batch_id, argMax(events, received_at) AS events FROM kb_batches_v1 GROUP BY run_id, batch_id)
                  GROUP BY run_id) AS ledger
            FULL OUTER JOIN (SELECT run_id, sum(requests) AS counted FROM ${REQUEST_SECONDS} GROUP BY run_id) AS rollup
            USING (run_id)
            WHERE recorded != counted`,
    format: 'JSONEachRow',
  });
  return z.array(SuspectRow).parse(await result.json()).map((r) => r.run_id);
}

const Totals = z.object({ counted: z.coerce.number(), recorded: z.coerce.number() });
const Disagreement = z.object({ level: z.coerce.number(), second: z.coerce.number() });

/**
 * Makes a run's rollup agree with its raw rows again: the (level, second) rows whose request count
 * differs from the raw rows' are deleted and rebuilt from the raw rows — unless the rollup's total
 * equals the ledger's (see runsWithSuspectRollup), when there is nothing to look for. Why this is needed: the
 * view's rows are written after the raw table's part, so a process killed between the two leaves
 * the raw rows stored and the rollup short — and the batches, answered as stored (the ledger and
 * the raw rows agree), are never sent again. Counts are exact in both tables, so any seconds a
 * crash touched differ in count.
 *
 * Must not run while this run takes batches (a batch landing in a second between its delete and
 * its rebuild would be counted twice): the write path calls it before the run's first write, and
 * at start-up before listening. Embedded engine or a single server; not a cluster (each shard's
 * view writes its own rollup there). Returns the seconds rebuilt.
 */
export async function repairRollup(db: Db, runId: string): Promise<number> {
  // Cheap first (two small tables): a run whose rollup counts what its ledger records needs no
  // look at its raw rows, which for a 10M-event run would be a scan at its first write.
  const totals = await db.client.query({
    query: `SELECT (SELECT sum(requests) FROM ${REQUEST_SECONDS} WHERE run_id = {run_id:UUID}) AS counted,
                   (SELECT sum(events) FROM (SELECT argMax(events, received_at) AS events FROM kb_batches_v1
                                             WHERE run_id = {run_id:UUID} GROUP BY batch_id)) AS recorded`,
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  const [total] = z.array(Totals).parse(await totals.json());
  if (total && total.counted === total.recorded) return 0;
  const result = await db.client.query({
    query: `SELECT level, second
            FROM (SELECT level, toInt64(floor(ts_ms / 1000)) AS second, count() AS raw_n
                  FROM ${RAW_EVENTS} WHERE run_id = {run_id:UUID} GROUP BY level, second) AS raw
            FULL OUTER JOIN (SELECT level, second, sum(requests) AS rollup_n
                  FROM ${REQUEST_SECONDS} WHERE run_id = {run_id:UUID} GROUP BY level, second) AS rollup
            USING (level, second)
            WHERE raw_n != rollup_n
            SETTINGS join_use_nulls = 0`,
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  const keys = z.array(Disagreement).parse(await result.json());
  if (keys.length === 0) return 0;
  // Two parallel arrays: a bound Array(Tuple(…)) does not parse from the client's array of arrays.
  const query_params = { run_id: runId, levels: keys.map((k) => k.level), seconds: keys.map((k) => k.second) };
  const keysSql = 'arrayZip({levels:Array(Float64)}, {seconds:Array(Int64)})';
  const inKeys = `has(${keysSql}, (level, second))`;
  await db.writes.run(async () => {
    await db.client.command({ query: `DELETE FROM kb_request_seconds_v1 WHERE run_id = {run_id:UUID} AND ${inKeys}`, query_params });
    // One-off rows, not a retried batch: no deduplication (and no token inherited from the session).
    await db.client.command({
      query: `INSERT INTO kb_request_seconds_v1
              SETTINGS insert_deduplicate = 0, insert_deduplication_token = '', async_insert = 0
              ${rollupSelectSql(`run_id = {run_id:UUID} AND has(${keysSql}, (level, toInt64(floor(ts_ms / 1000))))`)}`,
      query_params,
    });
    // The named events' seconds are in the per-name rollup (view 094): rebuilt with the others'.
    await db.client.command({ query: `DELETE FROM kb_request_name_seconds_v1 WHERE run_id = {run_id:UUID} AND ${inKeys}`, query_params });
    await db.client.command({
      query: `INSERT INTO kb_request_name_seconds_v1
              SETTINGS insert_deduplicate = 0, insert_deduplication_token = '', async_insert = 0
              ${rollupSelectSql(`run_id = {run_id:UUID} AND has(${keysSql}, (level, toInt64(floor(ts_ms / 1000))))`, true)}`,
      query_params,
    });
  });
  return keys.length;
}
