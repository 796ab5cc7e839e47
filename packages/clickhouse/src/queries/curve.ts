import { z } from 'zod';
import type { CurvePoint } from '@kneeboard/contracts';
import type { Db } from '../db.ts';
import { OK, WINDOWED_REQUESTS } from './window.ts';

const nullableMs = z.number().nullable();

/**
 * A curve point's columns over the windowed request rows (`r`, `s` of WINDOWED_REQUESTS), for
 * each group of `GROUP BY r.level` — or of `r.name, r.level` (name-curves.ts): one definition for
 * the curve of a run, of a name and of every name at once. A name's mean is the sum of the stored
 * integer microseconds over the count: a Float64 sum's last bits follow the order ClickHouse's
 * threads add the rows in, and that order differs between a read filtered on a name and one
 * grouped by it, while an integer sum does not — so both reads give the same double.
 */
export const exactPointColumns = (named: boolean): string => `r.level AS level,
        count() AS requests,
        countIf(${OK}) AS ok,
        any(s.measure_from_ms) AS measure_from,
        any(s.ended_at_ms) AS ended_at,
        max(r.ts_ms) AS last_ts,
        ${named ? `sumIf(r.latency_us, ${OK}) / 1000 / countIf(${OK})` : `avgIf(r.latency_ms, ${OK})`} AS mean,
        quantilesExactInclusiveIf(0.5, 0.9, 0.99, 0.999)(r.latency_ms, ${OK}) AS lat,
        quantilesExactInclusiveIf(0.5, 0.99)(assumeNotNull(r.compute_ms), ${OK} AND r.compute_ms IS NOT NULL) AS compute,
        quantilesExactInclusiveIf(0.5, 0.99)(assumeNotNull(r.queue_ms), ${OK} AND r.queue_ms IS NOT NULL) AS queue,
        quantilesExactInclusiveIf(0.5)(r.latency_ms - ifNull(r.compute_ms, 0) - ifNull(r.queue_ms, 0),
                                       ${OK} AND (r.compute_ms IS NOT NULL OR r.queue_ms IS NOT NULL)) AS other`;

export const CurveRow = z.object({
  level: z.number(),
  requests: z.coerce.number(),
  ok: z.coerce.number(),
  measure_from: z.number(),
  ended_at: z.number().nullable(),
  last_ts: z.number().nullable(),
  mean: nullableMs,
  lat: z.array(nullableMs),
  compute: z.array(nullableMs),
  queue: z.array(nullableMs),
  other: z.array(nullableMs),
});
export type CurveRow = z.infer<typeof CurveRow>;

/**
 * Length of a step's measurement window in seconds. A closed window runs to ended_at; an open one
 * (the step is still running) to the newest request seen so far, so live QPS is not diluted by
 * the time a batch takes to arrive.
 */
export function windowSeconds(measureFrom: number, endedAt: number | null, lastTs: number | null): number {
  const end = endedAt ?? lastTs ?? measureFrom;
  return Math.max(0, end - measureFrom) / 1000;
}

export function qps(ok: number, seconds: number): number {
  return seconds > 0 ? ok / seconds : 0;
}

type Percentiles = ReadonlyArray<number | null | undefined>;

/** ClickHouse gives NaN (JSON null) for a quantile of no rows; keep it null, never 0. */
const at = (xs: Percentiles, i: number): number | null => {
  const v = xs[i];
  return v === undefined || v === null || Number.isNaN(v) ? null : v;
};

/** What a curve point is made of, whichever way it was read (raw rows or the rollup). */
export interface CurvePointParts {
  level: number;
  requests: number;
  ok: number;
  measureFrom: number;
  endedAt: number | null;
  lastTs: number | null;
  meanMs: number | null;
  /** p50, p90, p99, p99.9 of the successful requests' latency. */
  lat: Percentiles;
  /** p50, p99 of compute and of queue; p50 of the rest. */
  compute: Percentiles;
  queue: Percentiles;
  other: Percentiles;
}

/** One point of the curve: the one place its fields are derived, for the exact and the rollup reads. */
export function curvePoint(p: CurvePointParts): CurvePoint {
  const window_s = windowSeconds(p.measureFrom, p.endedAt, p.lastTs);
  return {
    level: p.level,
    requests: p.requests,
    errors: p.requests - p.ok,
    qps: qps(p.ok, window_s),
    window_s,
    mean_ms: p.meanMs === null || Number.isNaN(p.meanMs) ? null : p.meanMs,
    p50_ms: at(p.lat, 0),
    p90_ms: at(p.lat, 1),
    p99_ms: at(p.lat, 2),
    p999_ms: at(p.lat, 3),
    compute_p50_ms: at(p.compute, 0),
    compute_p99_ms: at(p.compute, 1),
    queue_p50_ms: at(p.queue, 0),
    queue_p99_ms: at(p.queue, 1),
    other_p50_ms: at(p.other, 0),
    in_progress: p.endedAt === null,
  };
}

/** A row of EXACT_POINT_COLUMNS as its curve point. */
export function toPoint(row: CurveRow): CurvePoint {
  const { measure_from: measureFrom, ended_at: endedAt, last_ts: lastTs, mean: meanMs, ...rest } = row;
  return curvePoint({ ...rest, measureFrom, endedAt, lastTs, meanMs });
}

/**
 * The run's curve from raw rows: one point per level that has a step window and requests in it,
 * sorted by level. Percentiles use quantilesExactInclusive (linear interpolation between order
 * statistics, like numpy's default): exact at any latency, unlike quantilesTiming, which clamps
 * at 30 s. Reads every request of the run: what `?exact=1` asks for. With `name`, the requests of
 * that name only (their own curve, over the same step windows).
 */
export async function queryExactCurve(db: Db, runId: string, name?: string): Promise<CurvePoint[]> {
  const result = await db.client.query({
    query: `
      SELECT
        ${exactPointColumns(name !== undefined)}
      ${WINDOWED_REQUESTS}${name === undefined ? '' : '\n        AND r.name = {name:String}'}
      GROUP BY r.level
      ORDER BY r.level`,
    query_params: { run_ids: [runId], ...(name === undefined ? {} : { name }) },
    format: 'JSONEachRow',
  });
  return z.array(CurveRow).parse(await result.json()).map(toPoint);
}
