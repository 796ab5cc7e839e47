import { z } from 'zod';
import type { Db } from '../db.ts';
import { REQUEST_SECONDS } from '../request-seconds.ts';
import { RAW_EVENTS } from '../raw-events.ts';

const Count = z.array(z.object({ n: z.coerce.number() }));

/** Raw request rows stored for a run. */
export async function countRequests(db: Db, runId: string): Promise<number> {
  const result = await db.client.query({
    query: `SELECT count() AS n FROM ${RAW_EVENTS} WHERE run_id = {run_id:UUID}`,
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  return Count.parse(await result.json())[0]?.n ?? 0;
}

/** Requests the rollup has counted for a run: equal to countRequests when every batch went in once. */
export async function countRollupRequests(db: Db, runId: string): Promise<number> {
  const result = await db.client.query({
    query: `SELECT sum(requests) AS n FROM ${REQUEST_SECONDS} WHERE run_id = {run_id:UUID}`,
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  return Count.parse(await result.json())[0]?.n ?? 0;
}
