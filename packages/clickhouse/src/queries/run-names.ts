import { z } from 'zod';
import type { Db } from '../db.ts';

const NameRow = z.object({ name: z.string(), requests: z.coerce.number() });
export type RunName = z.infer<typeof NameRow>;

/**
 * The names a run's requests carry, with how many requests each, by name: read from the per-name
 * rollup (one row per level, name and second), never the raw rows. Empty for a run without names.
 */
export async function queryRunNames(db: Db, runId: string): Promise<RunName[]> {
  const result = await db.client.query({
    query: `SELECT name, sum(requests) AS requests FROM kb_request_name_seconds_v1
            WHERE run_id = {run_id:UUID} GROUP BY name ORDER BY name`,
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  return z.array(NameRow).parse(await result.json());
}
