import type { CurvePoint, PercentileSource, PercentilesWanted } from '@kneeboard/contracts';
import type { Db } from '../db.ts';
import { cacheOf } from '../versioned-cache.ts';
import { queryExactCurve } from './curve.ts';
import { queryRollupCurve } from './curve-rollup.ts';
import { NO_DATA, readRunState, versionKey } from './run-versions.ts';

/**
 * Up to this many requests in a run, `auto` reads raw rows: one query over them costs no more
 * than the rollup's several (measured on the embedded engine), and the answer is exact.
 */
export const EXACT_UP_TO_REQUESTS = 200_000;

/** Which read answers `wanted` for a run of `requests` requests: `auto` is exact up to EXACT_UP_TO_REQUESTS. */
export function curveSource(wanted: PercentilesWanted, requests: number): PercentileSource {
  return wanted !== 'auto' ? wanted : requests <= EXACT_UP_TO_REQUESTS ? 'exact' : 'rollup';
}

/**
 * The run's curve with percentiles from the rollup or from every raw row, as asked; `auto` picks
 * raw rows for small runs. Says which it used.
 *
 * A curve is a function of the run's stored events and step windows only, so it is computed once
 * per version of those (one small read: the run's steps and the rollup's totals for it) and kept:
 * a finished run's curve costs those two reads however many requests it holds; a running one is
 * recomputed when a batch or a step has arrived since, which is when it has changed.
 */
export async function queryCurve(db: Db, runId: string, wanted: PercentilesWanted = 'auto', name?: string): Promise<{ curve: CurvePoint[]; percentiles: PercentileSource }> {
  const { versions, windows } = await readRunState(db, [runId]);
  const version = versions.get(runId) ?? NO_DATA;
  const source = curveSource(wanted, version.requests);
  // A name's curve is kept beside the run's, under the run and the name (a name cannot hold a NUL).
  const cache = cacheOf<CurvePoint[]>(db, name === undefined ? `curve-${source}` : `name-curve-${source}`);
  const id = name === undefined ? runId : `${runId}\u0000${name}`;
  const key = versionKey(version, windows);
  let curve = cache.get(id, key);
  if (!curve) {
    curve = source === 'exact' ? await queryExactCurve(db, runId, name) : await queryRollupCurve(db, runId, windows, 'here', name);
    cache.set(id, key, curve);
  }
  return { curve, percentiles: source };
}
