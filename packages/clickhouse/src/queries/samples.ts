import { z } from 'zod';
import type { PercentileSource } from '@kneeboard/contracts';
import type { Db } from '../db.ts';
import { queryRollupLevelSamples } from './samples-rollup.ts';
import { OK, WINDOWED_REQUESTS } from './window.ts';

/** Per level, the raw material for confidence intervals. Structurally the analysis package's LevelSamples. */
export interface LevelSampleRows {
  level: number;
  /**
   * Successful requests per second in each bucket of the measurement window, empty buckets included
   * (a stall counts). Buckets are a tenth of the window, at most one second and at least 50 ms, so a
   * 0.5 s step has ten of them, like a 30 s step has thirty.
   */
  per_second_ok: number[];
  /** A uniform random sample (≤ maxLatencies, fixed seed) of successful requests' latencies. */
  latencies: number[];
}

/** A step longer than this is measured in its first day only: the bucket array stays bounded. */
const MAX_WINDOW_MS = 86_400_000;

const SampleRow = z.object({
  level: z.number(),
  buckets: z.coerce.number(),
  bucket_ms: z.coerce.number(),
  counts: z.array(z.tuple([z.coerce.number(), z.coerce.number()])),
  latencies: z.array(z.number()),
});

/**
 * Pulls what a comparison needs from the raw rows of one run: success counts per time bucket and a
 * fixed-seed sample of latencies per level. Arithmetic is in Float64 and clamped, so no stored value
 * (a timestamp far in the future, say) can make the query fail or the bucket array explode.
 */
export async function queryLevelSamples(db: Db, runId: string, maxLatencies = 20_000, name?: string): Promise<LevelSampleRows[]> {
  const result = await db.client.query({
    query: `
      WITH windowed AS (
        SELECT r.level AS level, r.latency_ms AS latency_ms, ${OK} AS ok,
               toFloat64(r.ts_ms) - toFloat64(s.measure_from_ms) AS offset_ms,
               s.measure_from_ms AS measure_from, s.ended_at_ms AS ended_at, r.ts_ms AS ts
        ${WINDOWED_REQUESTS}${name === undefined ? '' : '\n          AND r.name = {name:String}'}
      ),
      spans AS (
        SELECT level,
               least(greatest(toFloat64(ifNull(any(ended_at), max(ts))) - toFloat64(any(measure_from)), 0), {max_window_ms:Float64}) AS window_ms,
               greatest(least(floor(window_ms / 10), 1000), 50) AS bucket_ms,
               groupArraySampleIf({max_latencies:UInt32}, 20251121)(latency_ms, ok) AS latencies
        FROM windowed GROUP BY level
      ),
      per_bucket AS (
        SELECT w.level AS level, toUInt32(least(floor(w.offset_ms / sp.bucket_ms), 1e7)) AS bucket, countIf(w.ok) AS n
        FROM windowed AS w INNER JOIN spans AS sp ON sp.level = w.level
        GROUP BY level, bucket
      )
      SELECT sp.level AS level, toUInt32(floor(sp.window_ms / sp.bucket_ms)) AS buckets, sp.bucket_ms AS bucket_ms,
             arrayFilter(b -> b.1 < buckets, groupArray((p.bucket, p.n))) AS counts,
             any(sp.latencies) AS latencies
      FROM spans AS sp LEFT JOIN per_bucket AS p ON p.level = sp.level
      GROUP BY sp.level, sp.window_ms, sp.bucket_ms
      ORDER BY sp.level`,
    query_params: { run_ids: [runId], max_latencies: maxLatencies, max_window_ms: MAX_WINDOW_MS, ...(name === undefined ? {} : { name }) },
    format: 'JSONEachRow',
  });
  return z
    .array(SampleRow)
    .parse(await result.json())
    .map((row) => {
      const perSecond = new Array<number>(row.buckets).fill(0);
      for (const [bucket, n] of row.counts) perSecond[bucket] = (n * 1000) / row.bucket_ms;
      return { level: row.level, per_second_ok: perSecond, latencies: row.latencies };
    });
}

/**
 * A comparison's samples from where the run's curve came from: the rollup for a curve answered by
 * the rollup (large runs; see samples-rollup.ts), raw rows otherwise or where the rollup cannot
 * stand in. Says which it used: `rollup` latencies are approximate (within 0.5%), `exact` ones are
 * a random sample of the stored values. With `name`, that request name's rows only.
 */
export async function queryComparisonSamples(db: Db, runId: string, curveSource: PercentileSource, name?: string): Promise<{ samples: LevelSampleRows[]; source: PercentileSource }> {
  // One request name's samples come from its raw rows (its window, its successes): the rollup's
  // sample states are kept for the whole run only.
  if (name !== undefined) return { samples: await queryLevelSamples(db, runId, undefined, name), source: 'exact' };
  const rolled = curveSource === 'rollup' ? await queryRollupLevelSamples(db, runId) : null;
  return rolled ? { samples: rolled, source: 'rollup' } : { samples: await queryLevelSamples(db, runId), source: 'exact' };
}
