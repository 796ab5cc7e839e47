/**
 * The scale benches' data set: two runs of `levels × perLevel` requests (30 s steps whose windows
 * start and end mid-second, lognormal latencies whose median grows with the level), written with
 * `INSERT … SELECT FROM numbers()` so the rollup's view runs on them as on any insert. Kept in a
 * data directory with a marker file, so the slow part is done once and every profile reuses it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { insertRun, microsSql, migrate, RAW_EVENTS, upsertStep, type Db } from '@kneeboard/clickhouse';

export const STEP_MS = 30_000;
export const WARMUP_MS = 2_000;

export interface ScaleData {
  base: string;
  head: string;
  levels: number;
  perLevel: number;
  store_s: number;
}

export async function storeRun(db: Db, levels: number, perLevel: number, release: string, seed: number, slower: number): Promise<string> {
  const run = await insertRun(db, { service: 'scale-bench', release, load_model: 'closed', parameter: 'concurrency', tags: {} });
  const t0 = 1_800_000_000_000 + seed * 10_000_000;
  for (let l = 1; l <= levels; l++) {
    const started = t0 + (l - 1) * (STEP_MS + WARMUP_MS + 1_000) + 137.25;
    await upsertStep(db, run.id, { level: 2 ** (l - 1), started_at: started, measure_from: started + WARMUP_MS, ended_at: started + WARMUP_MS + STEP_MS, health: null });
    await db.client.command({
      // Rounded to the µs as the ingest rounds (raw-events.ts).
      query: `INSERT INTO ${RAW_EVENTS} (run_id, agent_id, level, ts_us, latency_us, compute_us, queue_us, status)
        SELECT {run:UUID}, 'bench', {level:Float64}, toInt64(${microsSql('{started:Float64} + number * {span:Float64} / {n:UInt32}')}),
               toUInt64(${microsSql('lat')}), toUInt64(${microsSql('lat * 0.7')}), if(number % 10 = 0, NULL, toUInt64(${microsSql('lat * 0.2')})),
               if(number % 200 = 0, 503, 200)
        FROM (SELECT number, {median:Float64} * exp(0.4 * sqrt(-2 * log((cityHash64(number, {seed:UInt32}, 1) % 1000003 + 1) / 1000004))
                                        * cos(2 * pi() * (cityHash64(number, {seed:UInt32}, 2) % 1000003) / 1000003)) AS lat
              FROM numbers({n:UInt32}))`,
      query_params: { run: run.id, level: 2 ** (l - 1), started, span: WARMUP_MS + STEP_MS, n: perLevel, median: 5 * slower * Math.max(1, 2 ** (l - 1) / 8), seed: seed * 100 + l },
    });
  }
  return run.id;
}

/** The two runs in `db`, stored now unless `markerDir` already holds a matching set. */
export async function ensureScaleData(db: Db, markerDir: string, levels: number, perLevel: number): Promise<ScaleData> {
  const marker = join(markerDir, 'kb-scale-data.json');
  if (existsSync(marker)) {
    const kept = JSON.parse(readFileSync(marker, 'utf8')) as ScaleData;
    if (kept.levels === levels && kept.perLevel === perLevel) return kept;
    throw new Error(`${markerDir} holds a data set of ${kept.levels} × ${kept.perLevel}; use another directory`);
  }
  await migrate(db);
  const t = performance.now();
  const base = await storeRun(db, levels, perLevel, 'v1', 1, 1);
  const head = await storeRun(db, levels, perLevel, 'v2', 2, 1.05);
  const data: ScaleData = { base, head, levels, perLevel, store_s: (performance.now() - t) / 1000 };
  writeFileSync(marker, JSON.stringify(data));
  return data;
}
