import { z } from 'zod';
import { isSuccessStatus, SPECTRUM_PERCENTS, type HistogramBucket, type LevelDetail, type StatusCount, type TimelineBucket } from '@kneeboard/contracts';
import type { Db } from '../db.ts';
import { boundUsSql, RAW_EVENTS } from '../raw-events.ts';
import { qps, windowSeconds } from './curve.ts';
import { HISTOGRAM_BUCKETS, MIN_LOG_MS, logEdges, sliceBounds, sliceRange, timelineBucketMs } from './level-buckets.ts';
import { OK, WINDOWED_REQUESTS } from './window.ts';

/** One level's rows inside its measurement window: the rows the curve counts for this point. */
const LEVEL_WINDOW = `${WINDOWED_REQUESTS}
    AND r.level = {level:Float64}`;

const StepRow = z.object({ started_at: z.number(), measure_from: z.number(), ended_at: z.number().nullable() });

const num = z.number().nullable().transform((v) => (v === null || Number.isNaN(v) ? null : v));

const WindowRow = z.object({
  requests: z.coerce.number(),
  ok: z.coerce.number(),
  min: num,
  mean: num,
  max: num,
  last_ts: num,
  spectrum: z.array(num),
});

const StatusRow = z.object({ status: z.number(), count: z.coerce.number() });
const HistRow = z.object({ b: z.coerce.number(), count: z.coerce.number() });
const SliceRow = z.object({ k: z.coerce.number(), requests: z.coerce.number(), ok: z.coerce.number(), lat: z.array(num) });

async function rows<T>(db: Db, schema: z.ZodType<T>, query: string, params: Record<string, unknown>): Promise<T[]> {
  const result = await db.client.query({ query, query_params: params, format: 'JSONEachRow' });
  return z.array(schema).parse(await result.json());
}

const QUANTILES = SPECTRUM_PERCENTS.map((p) => p / 100).join(', ');

/** Log-spaced histogram of successful latencies between the window's min and max. */
async function histogram(db: Db, params: Record<string, unknown>, min: number, max: number, ok: number): Promise<HistogramBucket[]> {
  const edges = logEdges(min, max);
  if (edges.length === 2) return [{ lo_ms: min, hi_ms: max, count: ok }];
  const lo = Math.max(min, MIN_LOG_MS);
  const found = await rows(
    db,
    HistRow,
    `SELECT least({n:UInt32} - 1, toUInt32(greatest(0, floor(log(greatest(r.latency_ms, {lo:Float64}) / {lo:Float64}) / {span:Float64} * {n:UInt32})))) AS b,
            count() AS count
     ${LEVEL_WINDOW} AND ${OK}
     GROUP BY b ORDER BY b`,
    { ...params, n: HISTOGRAM_BUCKETS, lo, span: Math.log(max / lo) },
  );
  const counts = new Map(found.map((r) => [r.b, r.count]));
  return edges.slice(0, -1).map((e, i) => ({ lo_ms: e, hi_ms: edges[i + 1] as number, count: counts.get(i) ?? 0 }));
}

/**
 * The step from started_at (warm-up included) to its end, in slices anchored at measure_from so a
 * slice is wholly warm-up or wholly measured. Percentiles per slice are exact, over successful rows.
 */
async function timeline(db: Db, params: Record<string, unknown>, step: z.infer<typeof StepRow>, end: number): Promise<{ bucket_ms: number; timeline: TimelineBucket[] }> {
  const width = timelineBucketMs(end - step.started_at);
  const { kMin, kMax } = sliceRange(step.started_at, step.measure_from, end, width);
  if (kMax < kMin) return { bucket_ms: width, timeline: [] };
  const found = await rows(
    db,
    SliceRow,
    `SELECT least(greatest(toInt64(floor((r.ts_ms - {mf:Float64}) / {w:Float64})), {kmin:Int64}), {kmax:Int64}) AS k,
            count() AS requests, countIf(${OK}) AS ok,
            quantilesExactInclusiveIf(0.5, 0.99)(r.latency_ms, ${OK}) AS lat
     FROM ${RAW_EVENTS} AS r
     WHERE r.run_id = {run_id:UUID} AND r.level = {level:Float64} AND r.ts_us >= ${boundUsSql('{from:Float64}')} AND r.ts_us <= ${boundUsSql('{to:Float64}')}
     GROUP BY k ORDER BY k`,
    { ...params, mf: step.measure_from, w: width, kmin: kMin, kmax: kMax, from: step.started_at, to: end },
  );
  const byK = new Map(found.map((r) => [r.k, r]));
  const out: TimelineBucket[] = [];
  for (let k = kMin; k <= kMax; k++) {
    const { from, to } = sliceBounds(k, step.measure_from, width, step.started_at, end);
    if (to <= from) continue;
    const r = byK.get(k);
    const ok = r?.ok ?? 0;
    out.push({
      t_s: (from - step.started_at) / 1000,
      duration_ms: to - from,
      requests: r?.requests ?? 0,
      ok,
      qps: ok / ((to - from) / 1000),
      p50_ms: r?.lat[0] ?? null,
      p99_ms: r?.lat[1] ?? null,
      measured: k >= 0,
    });
  }
  return { bucket_ms: width, timeline: out };
}

/**
 * Inside one level: statistics of its measurement window (the same rows as its curve point, via
 * WINDOWED_REQUESTS), and its whole step over time. Null when the run has no step at that level.
 * Percentiles are exact: quantilesExactInclusive, like the curve.
 */
export async function queryLevelDetail(db: Db, runId: string, level: number): Promise<LevelDetail | null> {
  const params = { run_ids: [runId], run_id: runId, level };
  const [step] = await rows(
    db,
    StepRow,
    `SELECT started_at_ms AS started_at, measure_from_ms AS measure_from, ended_at_ms AS ended_at
     FROM kb_steps_v1 FINAL WHERE run_id = {run_id:UUID} AND level = {level:Float64}`,
    params,
  );
  if (!step) return null;
  const [win, statuses] = await Promise.all([
    rows(
      db,
      WindowRow,
      `SELECT count() AS requests, countIf(${OK}) AS ok,
              if(countIf(${OK}) = 0, NULL, minIf(r.latency_ms, ${OK})) AS min,
              avgIf(r.latency_ms, ${OK}) AS mean,
              if(countIf(${OK}) = 0, NULL, maxIf(r.latency_ms, ${OK})) AS max,
              if(count() = 0, NULL, max(r.ts_ms)) AS last_ts,
              quantilesExactInclusiveIf(${QUANTILES})(r.latency_ms, ${OK}) AS spectrum
       ${LEVEL_WINDOW}`,
      params,
    ).then((r) => r[0] as z.infer<typeof WindowRow>),
    rows(db, StatusRow, `SELECT r.status AS status, count() AS count ${LEVEL_WINDOW} GROUP BY status ORDER BY status`, params),
  ]);
  const okCount = win.requests === 0 ? 0 : win.ok;
  const end = step.ended_at ?? Math.max(win.last_ts ?? step.measure_from, step.measure_from);
  const window_s = windowSeconds(step.measure_from, step.ended_at, win.last_ts);
  const [hist, time] = await Promise.all([
    win.min !== null && win.max !== null && okCount > 0 ? histogram(db, params, win.min, win.max, okCount) : Promise.resolve([]),
    timeline(db, params, step, end),
  ]);
  return {
    run_id: runId,
    level,
    started_at: step.started_at,
    measure_from: step.measure_from,
    ended_at: step.ended_at,
    in_progress: step.ended_at === null,
    window_s,
    requests: win.requests,
    ok: okCount,
    errors: win.requests - okCount,
    qps: qps(okCount, window_s),
    min_ms: okCount > 0 ? win.min : null,
    mean_ms: okCount > 0 ? win.mean : null,
    max_ms: okCount > 0 ? win.max : null,
    spectrum: SPECTRUM_PERCENTS.map((p, i) => ({ p, ms: okCount > 0 ? (win.spectrum[i] ?? null) : null })),
    histogram: hist,
    ...time,
    statuses: statuses.map((s): StatusCount => ({ status: s.status, count: s.count, ok: isSuccessStatus(s.status) })),
  };
}
