import { z } from 'zod';
import type { Db } from '../db.ts';

const Row = z.object({ id: z.string(), mark: z.string() });

/**
 * A cheap mark per run that changes whenever its data does: batches in the ledger (count and
 * newest), the newest step and run row versions. One query for many runs, reading only the small
 * tables, so a watcher can ask "did anything arrive?" every second without recomputing curves.
 * Runs with no row at all are absent from the map.
 */
export async function queryRunChangeMarks(db: Db, runIds: readonly string[]): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const result = await db.client.query({
    query: `SELECT toString(id) AS id, arrayStringConcat(arraySort(groupArray(part)), '|') AS mark FROM (
              SELECT run_id AS id, concat('b', toString(count()), '@', toString(max(received_at))) AS part FROM kb_batches_v1 WHERE run_id IN {ids:Array(UUID)} GROUP BY run_id
              UNION ALL SELECT run_id AS id, concat('s', toString(count()), '@', toString(max(version))) AS part FROM kb_steps_v1 WHERE run_id IN {ids:Array(UUID)} GROUP BY run_id
              UNION ALL SELECT id, concat('r', toString(max(version))) AS part FROM kb_runs_v1 WHERE id IN {ids:Array(UUID)} GROUP BY id
            ) GROUP BY id`,
    query_params: { ids: runIds },
    format: 'JSONEachRow',
  });
  const rows = z.array(Row).parse(await result.json());
  return new Map(rows.map((r) => [r.id, r.mark]));
}
