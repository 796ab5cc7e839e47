import { z } from 'zod';
import type { Db } from '../db.ts';
import { REQUEST_SECONDS } from '../request-seconds.ts';
import { boundsOf, type StepWindowBounds } from './rollup-window.ts';

/**
 * What a run's stored data looks like, in one small read of the rollup: the requests counted and
 * the newest timestamp. Events are only ever added (a replayed batch is dropped, not re-added), so
 * the count grows with every stored batch and stays put otherwise (background merges of the
 * rollup's rows change neither number):
 * with the run's step windows they are a version of everything a curve or a summary is computed
 * from. That is what lets results be kept and reused until the run changes (`VersionedCache`).
 */
export interface RunVersion {
  requests: number;
  last_ts: number | null;
}

const Row = z.object({
  run_id: z.string(),
  level: z.number(),
  measure_from: z.number(),
  ended_at: z.number().nullable(),
  requests: z.coerce.number(),
  last_ts: z.number().nullable(),
});

export const NO_DATA: RunVersion = { requests: 0, last_ts: null };

/**
 * The runs' step windows and data versions in one read (every check of a kept result costs one
 * round trip, and the embedded engine runs one query at a time). A run without steps has no
 * windows and nothing to compute, so it needs no version.
 */
export async function readRunState(db: Db, runIds: string[]): Promise<{ versions: Map<string, RunVersion>; windows: StepWindowBounds[] }> {
  const versions = new Map<string, RunVersion>();
  if (runIds.length === 0) return { versions, windows: [] };
  const result = await db.client.query({
    query: `SELECT s.run_id AS run_id, s.level AS level, s.measure_from_ms AS measure_from, s.ended_at_ms AS ended_at,
                   ifNull(v.requests, 0) AS requests, v.last_ts AS last_ts
            FROM (SELECT run_id, level, measure_from_ms, ended_at_ms FROM kb_steps_v1 FINAL WHERE run_id IN {run_ids:Array(UUID)}) AS s
            LEFT JOIN (SELECT run_id, sum(requests) AS requests, toNullable(toFloat64(max(last_ts_ms))) AS last_ts
                       FROM ${REQUEST_SECONDS} WHERE run_id IN {run_ids:Array(UUID)} GROUP BY run_id) AS v ON v.run_id = s.run_id`,
    query_params: { run_ids: runIds },
    format: 'JSONEachRow',
  });
  const rows = z.array(Row).parse(await result.json());
  for (const r of rows) versions.set(r.run_id, { requests: r.requests, last_ts: r.last_ts });
  return { versions, windows: rows.map((r) => boundsOf({ run_id: r.run_id, level: r.level, measure_from: r.measure_from, ended_at: r.ended_at })) };
}

/** The version string of one run: its data's version and its windows (a moved window changes every point). */
export function versionKey(v: RunVersion, windows: StepWindowBounds[]): string {
  const w = windows
    .map((x) => `${x.level}:${x.measure_from}:${x.ended_at ?? ''}`)
    .sort()
    .join(',');
  return `${v.requests}|${v.last_ts ?? ''}|${w}`;
}

/**
 * One version string for the data of several runs (one small read, whatever their size): a
 * result computed from those runs' curves can be kept until it changes.
 */
export async function runsDataVersion(db: Db, runIds: string[]): Promise<string> {
  const { versions, windows } = await readRunState(db, runIds);
  return runIds.map((id) => `${id}=${versionKey(versions.get(id) ?? NO_DATA, windows.filter((w) => w.run_id === id))}`).join(';');
}

const ServiceVersionRow = z.object({ runs: z.coerce.string(), runs_hash: z.coerce.string(), steps_hash: z.coerce.string(), requests: z.coerce.string(), last_ts: z.coerce.string().nullable() });

/**
 * One version of everything a service's history is computed from, in one small read that returns
 * one row: its runs (each row's write version: a finish, a label, a note, a new run, a delete), its
 * steps (each window's write version) and its stored requests (count and newest second). Cheaper
 * than a version per run when nothing changed, which is the common read. GLOBAL IN: on a cluster
 * the service's run ids are gathered once and sent to every shard.
 */
export async function serviceDataVersion(db: Db, service: string): Promise<string> {
  const result = await db.client.query({
    query: `
      WITH runs AS (SELECT id, version FROM kb_runs_v1 FINAL WHERE service = {service:String})
      SELECT
        (SELECT count() FROM runs) AS runs,
        (SELECT groupBitXor(cityHash64(id, version)) FROM runs) AS runs_hash,
        (SELECT groupBitXor(cityHash64(run_id, level, version)) FROM kb_steps_v1 FINAL WHERE run_id GLOBAL IN (SELECT id FROM runs)) AS steps_hash,
        (SELECT sum(requests) FROM ${REQUEST_SECONDS} WHERE run_id GLOBAL IN (SELECT id FROM runs)) AS requests,
        (SELECT max(last_ts_ms) FROM ${REQUEST_SECONDS} WHERE run_id GLOBAL IN (SELECT id FROM runs)) AS last_ts`,
    query_params: { service },
    format: 'JSONEachRow',
  });
  const [row] = z.array(ServiceVersionRow).parse(await result.json());
  return row ? `${row.runs}|${row.runs_hash}|${row.steps_hash}|${row.requests}|${row.last_ts ?? ''}` : '';
}
