import { z } from 'zod';
import { insertSettings, type Db } from '../db.ts';

/** One fact of a fleet plan as stored: when a replica accepted it (API clock), a unique id, its kind, the fact as JSON. */
export interface FleetLogRow {
  at_ms: number;
  id: string;
  kind: string;
  body: string;
}

const LogRow = z.object({ at_ms: z.number(), id: z.string(), kind: z.string(), body: z.string() });

/** Appends facts to a run's plan log in one insert (one atomic block: a command's facts land together). */
export async function appendFleetLog(db: Db, runId: string, rows: readonly FleetLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.writes.run(() =>
    db.client.insert({ table: 'kb_fleet_log_v1', values: rows.map((r) => ({ run_id: runId, ...r })), format: 'JSONEachRow', clickhouse_settings: insertSettings() }),
  );
}

/** Every fact of a run's plan, in the order every replica folds them. */
export async function readFleetLog(db: Db, runId: string): Promise<FleetLogRow[]> {
  const result = await db.client.query({
    query: 'SELECT at_ms, id, kind, body FROM kb_fleet_log_v1 WHERE run_id = {run_id:UUID} ORDER BY at_ms, id',
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  return z.array(LogRow).parse(await result.json());
}

/** Runs whose plan log has a fact at or after `sinceMs`: the plans an API process starting up may have to resume. */
export async function recentFleetPlans(db: Db, sinceMs: number): Promise<string[]> {
  const result = await db.client.query({
    query: 'SELECT DISTINCT toString(run_id) AS run_id FROM kb_fleet_log_v1 WHERE at_ms >= {since:Float64}',
    query_params: { since: sinceMs },
    format: 'JSONEachRow',
  });
  return z
    .array(z.object({ run_id: z.string() }))
    .parse(await result.json())
    .map((r) => r.run_id);
}

/** The agents were heard from at `atMs` (a heartbeat, a poll). */
export async function markFleetSeen(db: Db, runId: string, agentIds: readonly string[], atMs: number): Promise<void> {
  if (agentIds.length === 0) return;
  await db.writes.run(() =>
    db.client.insert({
      table: 'kb_fleet_seen_v1',
      values: agentIds.map((agent_id) => ({ run_id: runId, agent_id, seen_at_ms: atMs })),
      format: 'JSONEachRow',
      clickhouse_settings: insertSettings(),
    }),
  );
}

/** When each agent of the run was last heard from, by any replica. */
export async function readFleetSeen(db: Db, runId: string): Promise<Map<string, number>> {
  const result = await db.client.query({
    query: 'SELECT agent_id, max(seen_at_ms) AS seen_at FROM kb_fleet_seen_v1 WHERE run_id = {run_id:UUID} GROUP BY agent_id',
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  const rows = z.array(z.object({ agent_id: z.string(), seen_at: z.number() })).parse(await result.json());
  return new Map(rows.map((r) => [r.agent_id, r.seen_at]));
}
