import { z } from 'zod';
import type { CurvePoint, PercentileSource, PercentilesWanted } from '@kneeboard/contracts';
import type { Db } from '../db.ts';
import { queryExactCurve } from './curve.ts';
import { queryRollupCurve } from './curve-rollup.ts';

/**
 * Up to this many requests in a run, `auto` reads raw rows: one query over them costs no more
 * than the rollup's several (measured on the embedded engine), and the answer is exact.
 */
export const EXACT_UP_TO_REQUESTS = 200_000;

const Size = z.array(z.object({ n: z.coerce.number() }));

/** The run's size from the rollup: one small read. */
async function rolledUpRequests(db: Db, runId: string): Promise<number> {
  const result = await db.client.query({
    query: 'SELECT sum(requests) AS n FROM kb_request_seconds_v1 WHERE run_id = {run_id:UUID}',
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  return Size.parse(await result.json())[0]?.n ?? 0;
}

/**
 * The run's curve with percentiles from the rollup or from every raw row, as asked; `auto` picks
 * raw rows for small runs. Says which it used.
 */
export async function queryCurve(db: Db, runId: string, wanted: PercentilesWanted = 'auto'): Promise<{ curve: CurvePoint[]; percentiles: PercentileSource }> {
  const source: PercentileSource = wanted !== 'auto' ? wanted : (await rolledUpRequests(db, runId)) <= EXACT_UP_TO_REQUESTS ? 'exact' : 'rollup';
  return { curve: source === 'exact' ? await queryExactCurve(db, runId) : await queryRollupCurve(db, runId), percentiles: source };
}
