import { z } from 'zod';
import type { Db } from '../db.ts';
import { OK, WINDOWED_REQUESTS } from './window.ts';

/** Per level, the raw material for confidence intervals. Structurally the analysis package's LevelSamples. */
export interface LevelSampleRows {
  level: number;
  /** Successful requests in each whole second of the measurement window, zeros included. */
  per_second_ok: number[];
  /** A uniform random sample (≤ maxLatencies, fixed seed) of successful requests' latencies. */
  latencies: number[];
}

const SampleRow = z.object({
  level: z.number(),
  seconds: z.coerce.number(),
  buckets: z.array(z.tuple([z.coerce.number(), z.coerce.number()])),
  latencies: z.array(z.number()),
});

/**
 * Pulls what a comparison needs from the raw rows of one run: per-second success counts (seconds
 * with none are zeros, so a stall counts) and a fixed-seed sample of latencies per level.
 */
export async function queryLevelSamples(db: Db, runId: string, maxLatencies = 20_000): Promise<LevelSampleRows[]> {
  const result = await db.client.query({
    query: `
      WITH windowed AS (
        SELECT r.level AS level, r.latency_ms AS latency_ms, ${OK} AS ok,
               toUInt32(intDiv(r.ts_ms - s.measure_from_ms, 1000)) AS second,
               s.measure_from_ms AS measure_from, s.ended_at_ms AS ended_at, r.ts_ms AS ts
        ${WINDOWED_REQUESTS}
      ),
      per_second AS (
        SELECT level, second, countIf(ok) AS n FROM windowed GROUP BY level, second
      ),
      whole_seconds AS (
        SELECT level, toUInt32(floor((ifNull(any(ended_at), max(ts)) - any(measure_from)) / 1000)) AS seconds,
               groupArraySampleIf({max_latencies:UInt32}, 20251121)(latency_ms, ok) AS latencies
        FROM windowed GROUP BY level
      )
      SELECT w.level AS level, w.seconds AS seconds,
             arrayFilter(b -> b.1 < w.seconds, groupArray((p.second, p.n))) AS buckets,
             any(w.latencies) AS latencies
      FROM whole_seconds AS w LEFT JOIN per_second AS p ON p.level = w.level
      GROUP BY w.level, w.seconds
      ORDER BY w.level`,
    query_params: { run_ids: [runId], max_latencies: maxLatencies },
    format: 'JSONEachRow',
  });
  return z
    .array(SampleRow)
    .parse(await result.json())
    .map((row) => {
      const perSecond = new Array<number>(row.seconds).fill(0);
      for (const [second, n] of row.buckets) perSecond[second] = n;
      return { level: row.level, per_second_ok: perSecond, latencies: row.latencies };
    });
}
