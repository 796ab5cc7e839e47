import { z } from 'zod';
import { MAX_TIMELINE_POINTS, type RunTimeline, type RunTimelinePoint } from '@kneeboard/contracts';
import type { Db } from '../db.ts';
import { REQUEST_SECONDS } from '../request-seconds.ts';
import { ROLLUP_DD as DD, ROLLUP_SCALE as SCALE } from './rollup-sketch.ts';
import { listSteps } from './steps.ts';

const SpanRow = z.object({ first: z.coerce.number().nullable(), last: z.coerce.number().nullable() });
const num = z.number().nullable().transform((v) => (v === null || Number.isNaN(v) ? null : v));
const BucketRow = z.object({ k: z.coerce.number(), requests: z.coerce.number(), ok: z.coerce.number(), lat: z.array(num) });

/** Seconds per point so that a run of `seconds` gives at most `max` points. */
export function timelineBucketSeconds(seconds: number, max = MAX_TIMELINE_POINTS): number {
  return Math.max(1, Math.ceil(seconds / max));
}

/**
 * The whole run against wall-clock time, from the per-second rollup (REQUEST_SECONDS, rows per
 * run, level and second): every level's requests summed per second, so the seconds where
 * one step hands over to the next count both. Counts are exact; p50/p99 come from the merged
 * DDSketch states (within 0.5%). Two statements whatever the run's size — the span, then the
 * buckets — and the steps to shade. Runs longer than MAX_TIMELINE_POINTS seconds are read in
 * wider buckets (aligned on the first second), so a point is never a sample of a second.
 */
export async function queryRunTimeline(db: Db, runId: string): Promise<RunTimeline> {
  const params = { run_id: runId };
  const [spanResult, steps] = await Promise.all([
    db.client.query({
      query: `SELECT if(count() = 0, NULL, min(second)) AS first, if(count() = 0, NULL, max(second)) AS last
              FROM ${REQUEST_SECONDS} WHERE run_id = {run_id:UUID}`,
      query_params: params,
      format: 'JSONEachRow',
    }),
    listSteps(db, runId),
  ]);
  const [span] = z.array(SpanRow).parse(await spanResult.json());
  const stepsOut = steps.map((s) => ({ level: s.level, started_at: s.started_at, measure_from: s.measure_from, ended_at: s.ended_at }));
  if (!span || span.first === null || span.last === null) return { run_id: runId, bucket_s: 1, points: [], steps: stepsOut };
  const { first, last } = span;
  const bucket = timelineBucketSeconds(last - first + 1);
  const result = await db.client.query({
    query: `SELECT intDiv(second - {first:Int64}, {bucket:Int64}) AS k,
                   sum(requests) AS requests, sum(ok) AS ok,
                   quantilesDDMerge(${DD}, 0.5, 0.99)(latency) AS lat
            FROM ${REQUEST_SECONDS}
            WHERE run_id = {run_id:UUID} AND second >= {first:Int64} AND second <= {last:Int64}
            GROUP BY k ORDER BY k`,
    query_params: { ...params, first, last, bucket },
    format: 'JSONEachRow',
  });
  const byK = new Map(z.array(BucketRow).parse(await result.json()).map((r) => [r.k, r]));
  const points: RunTimelinePoint[] = [];
  const count = Math.floor((last - first) / bucket) + 1;
  for (let k = 0; k < count; k++) {
    const r = byK.get(k);
    const requests = r?.requests ?? 0;
    const ok = r && r.ok > 0 ? r.ok : 0;
    const ms = (i: number) => (ok > 0 && r?.lat[i] != null ? (r.lat[i] as number) / SCALE : null);
    points.push({ t_ms: (first + k * bucket) * 1000, requests, ok, errors: requests - ok, rps: requests / bucket, p50_ms: ms(0), p99_ms: ms(1) });
  }
  return { run_id: runId, bucket_s: bucket, points, steps: stepsOut };
}
