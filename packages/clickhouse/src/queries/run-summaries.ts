import { z } from 'zod';
import type { Db } from '../db.ts';
import { REQUEST_SECONDS } from '../request-seconds.ts';
import { RAW_EVENTS } from '../raw-events.ts';
import { qps, windowSeconds } from './curve.ts';
import { cacheOf } from '../versioned-cache.ts';
import { windowConditions, type StepWindowBounds } from './rollup-window.ts';
import { NO_DATA, readRunState, versionKey } from './run-versions.ts';
import { OK } from './window.ts';

const SummaryRow = z.object({
  run_id: z.string(),
  level: z.number(),
  requests: z.coerce.number(),
  ok: z.coerce.number(),
  last_ts: z.number().nullable(),
});

export interface RunCurveSummary {
  levels: number;
  requests: number;
  peak_qps: number | null;
}

/**
 * What the runs list shows per run — levels with requests, requests, peak QPS — for many runs:
 * each run's summary is kept per version of its data (see run-versions.ts), so a list of finished
 * runs costs one small read (the steps and the rollup's per-run totals); only runs that changed since
 * they were last summarised are read again, together in one query.
 */
export async function queryRunSummaries(db: Db, runIds: string[]): Promise<Map<string, RunCurveSummary>> {
  const out = new Map<string, RunCurveSummary>();
  const { versions, windows } = await readRunState(db, runIds);
  if (windows.length === 0) return out;
  const cache = cacheOf<RunCurveSummary | null>(db, 'run-summary');
  const keys = new Map<string, string>();
  const stale: StepWindowBounds[] = [];
  for (const id of new Set(windows.map((w) => w.run_id))) {
    const own = windows.filter((w) => w.run_id === id);
    const key = versionKey(versions.get(id) ?? NO_DATA, own);
    const kept = cache.get(id, key);
    if (kept === undefined) {
      keys.set(id, key);
      stale.push(...own);
    } else if (kept !== null) out.set(id, kept);
  }
  const fresh = await summarise(db, stale);
  for (const [id, key] of keys) {
    const s = fresh.get(id);
    cache.set(id, key, s ?? null);
    if (s) out.set(id, s);
  }
  return out;
}

/** Exact counts from the rollup's whole seconds plus the raw rows at each window's edges, in one query. */
async function summarise(db: Db, windows: StepWindowBounds[]): Promise<Map<string, RunCurveSummary>> {
  const out = new Map<string, RunCurveSummary>();
  if (windows.length === 0) return out;
  const where = windowConditions(windows);
  const result = await db.client.query({
    query: `
      SELECT run_id, level, sum(n) AS requests, sum(n_ok) AS ok, max(ts) AS last_ts
      FROM (
        SELECT r.run_id AS run_id, r.level AS level, toUInt64(r.requests) AS n, toUInt64(r.ok) AS n_ok, toFloat64(r.last_ts_ms) AS ts
        FROM ${REQUEST_SECONDS} AS r
        WHERE ${where.rollup}
        UNION ALL
        SELECT r.run_id AS run_id, r.level AS level, count() AS n, countIf(${OK}) AS n_ok, max(r.ts_ms) AS ts
        FROM ${RAW_EVENTS} AS r
        WHERE ${where.raw}
        GROUP BY r.run_id, r.level
      )
      GROUP BY run_id, level
      HAVING requests > 0`,
    query_params: where.params,
    format: 'JSONEachRow',
  });
  const byKey = new Map(windows.map((w) => [`${w.run_id}|${w.level}`, w]));
  for (const row of z.array(SummaryRow).parse(await result.json())) {
    const w = byKey.get(`${row.run_id}|${row.level}`);
    if (!w) continue;
    const rate = qps(row.ok, windowSeconds(w.measure_from, w.ended_at, row.last_ts));
    const s = out.get(row.run_id) ?? { levels: 0, requests: 0, peak_qps: null };
    s.levels += 1;
    s.requests += row.requests;
    s.peak_qps = Math.max(s.peak_qps ?? 0, rate);
    out.set(row.run_id, s);
  }
  return out;
}
