import { z } from 'zod';
import type { Db } from '../db.ts';
import type { LevelSampleRows } from './samples.ts';
import { OK, WINDOWED_REQUESTS } from './window.ts';

/** As samples.ts: a step longer than this is measured in its first day only. */
const MAX_WINDOW_MS = 86_400_000;
/** As samples.ts: at most this many latencies per (name, level). */
const MAX_LATENCIES = 20_000;

const NamedSampleRow = z.object({
  name: z.string(),
  level: z.number(),
  buckets: z.coerce.number(),
  bucket_ms: z.coerce.number(),
  counts: z.array(z.tuple([z.coerce.number(), z.coerce.number()])),
  latencies: z.array(z.number()),
});

/**
 * Several request names' comparison samples in one read: per (name, level), queryLevelSamples'
 * material for that name alone — its window's success counts per bucket (the buckets sized from
 * the level's window as there, so a name's per_second_ok is the filtered read's) and a sample of
 * its successful latencies — with `name` a key of the GROUP BY, so N names cost one scan of the
 * run's raw rows instead of N.
 * The latency sample is the MAX_LATENCIES rows of smallest hash of (time, latency, agent), in
 * ascending latency order: a uniform pseudo-random pick that does not depend on the order rows
 * reach the aggregate (threads, parts, which other names are read alongside), so a name's sample
 * is the same whether it is read alone (`compare?name=`) or with every other name (the per-endpoint
 * summary), and the bootstrap's seed, taken from the values, is too. Where a (name, level) has
 * fewer successes than that, the sample is all of them.
 * Each asked name gets an entry; one without requests in any window gets no levels.
 */
export async function queryNameLevelSamples(db: Db, runId: string, names: string[]): Promise<Map<string, LevelSampleRows[]>> {
  const out = new Map<string, LevelSampleRows[]>(names.map((n) => [n, []]));
  if (names.length === 0) return out;
  const result = await db.client.query({
    query: `
      WITH windowed AS (
        SELECT r.name AS name, r.level AS level, r.latency_ms AS latency_ms, ${OK} AS ok,
               cityHash64(r.ts_us, r.latency_us, r.agent_id) AS pick,
               toFloat64(r.ts_ms) - toFloat64(s.measure_from_ms) AS offset_ms,
               s.measure_from_ms AS measure_from, s.ended_at_ms AS ended_at, r.ts_ms AS ts
        ${WINDOWED_REQUESTS}
          AND r.name IN {names:Array(String)}
      ),
      spans AS (
        SELECT name, level,
               least(greatest(toFloat64(ifNull(any(ended_at), max(ts))) - toFloat64(any(measure_from)), 0), {max_window_ms:Float64}) AS window_ms,
               greatest(least(floor(window_ms / 10), 1000), 50) AS bucket_ms,
               arraySort(arrayMap(x -> x.2, groupArraySortedIf({max_latencies:UInt32})((pick, latency_ms), ok))) AS latencies
        FROM windowed GROUP BY name, level
      ),
      per_bucket AS (
        SELECT w.name AS name, w.level AS level, toUInt32(least(floor(w.offset_ms / sp.bucket_ms), 1e7)) AS bucket, countIf(w.ok) AS n
        FROM windowed AS w INNER JOIN spans AS sp ON sp.name = w.name AND sp.level = w.level
        GROUP BY name, level, bucket
      )
      SELECT sp.name AS name, sp.level AS level, toUInt32(floor(sp.window_ms / sp.bucket_ms)) AS buckets, sp.bucket_ms AS bucket_ms,
             arrayFilter(b -> b.1 < buckets, groupArray((p.bucket, p.n))) AS counts,
             any(sp.latencies) AS latencies
      FROM spans AS sp LEFT JOIN per_bucket AS p ON p.name = sp.name AND p.level = sp.level
      GROUP BY sp.name, sp.level, sp.window_ms, sp.bucket_ms
      ORDER BY sp.name, sp.level`,
    query_params: { run_ids: [runId], names, max_latencies: MAX_LATENCIES, max_window_ms: MAX_WINDOW_MS },
    format: 'JSONEachRow',
  });
  for (const row of z.array(NamedSampleRow).parse(await result.json())) {
    const perSecond = new Array<number>(row.buckets).fill(0);
    for (const [bucket, n] of row.counts) perSecond[bucket] = (n * 1000) / row.bucket_ms;
    out.get(row.name)?.push({ level: row.level, per_second_ok: perSecond, latencies: row.latencies });
  }
  return out;
}
