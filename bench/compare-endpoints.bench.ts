/**
 * The per-endpoint summary of a comparison (`GET /compare`'s `endpoints`): two runs of 20 request
 * names × 5 levels, compared whole (the summary included) through the API's own buildComparison
 * (bootstraps in this thread), timed and its ClickHouse statements counted:
 * - cold: a fresh storage handle (the API's caches empty: the run details, the name curves);
 * - repeated: the same handle again, with another min_effect so the kept report is not the answer.
 * Sizes: requests per level over all 20 names (`KB_BENCH_PER_LEVEL`, comma separated).
 * Before/after in the same data: `KB_BENCH_COMPARE` names another compare module to time (e.g. the
 * previous commit's compare.ts copied beside the current one); `KB_BENCH_LABEL` labels its rows.
 * Rows of other labels already in the result file are kept, so the two runs end in one table.
 *   flock /tmp/kb-bench.lock npx tsx bench/compare-endpoints.bench.ts
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { insertRun, microsSql, migrate, openDb, RAW_EVENTS, upsertStep, type Db } from '@kneeboard/clickhouse';
import { quantile, report } from './lib/report.ts';

const NAMES = 20;
const LEVELS = 5;
const STEP_MS = 30_000;
const ROUNDS = 2;
const dataDir = process.env.KB_BENCH_DIR ?? '/tmp/kb-bench-compare-endpoints';
const label = process.env.KB_BENCH_LABEL ?? 'after';
const sizes = (process.env.KB_BENCH_PER_LEVEL ?? '10000,200000').split(',').map(Number);
const modulePath = process.env.KB_BENCH_COMPARE ?? fileURLToPath(new URL('../apps/api/src/services/compare.ts', import.meta.url));

type Build = (db: Db, query: { base: string[]; head: string[][]; min_effect: number }) => Promise<{ report: { endpoints?: { names: unknown[] } } }>;
const { buildComparison } = (await import(modulePath)) as { buildComparison: Build };

/** One run: per level `perLevel` requests spread over the names (name k gets every 20th), lognormal latencies. */
async function storeRun(db: Db, perLevel: number, release: string, seed: number): Promise<string> {
  const run = await insertRun(db, { service: 'compare-endpoints-bench', release, load_model: 'closed', parameter: 'concurrency', tags: {} });
  const t0 = 1_800_000_000_000 + seed * 10_000_000;
  for (let l = 1; l <= LEVELS; l++) {
    const started = t0 + (l - 1) * (STEP_MS + 1_000) + 137.25;
    await upsertStep(db, run.id, { level: 2 ** (l - 1), started_at: started, measure_from: started, ended_at: started + STEP_MS, health: null });
    await db.client.command({
      query: `INSERT INTO ${RAW_EVENTS} (run_id, agent_id, level, ts_us, latency_us, compute_us, queue_us, status, name)
        SELECT {run:UUID}, 'bench', {level:Float64}, toInt64(${microsSql('{started:Float64} + number * {span:Float64} / {n:UInt32}')}),
               toUInt64(${microsSql('lat')}), NULL, NULL, if(number % 200 = 0, 503, 200), concat('endpoint-', toString(number % ${NAMES}))
        FROM (SELECT number, {median:Float64} * (1 + number % ${NAMES} / 10) * exp(0.4 * sqrt(-2 * log((cityHash64(number, {seed:UInt32}, 1) % 1000003 + 1) / 1000004))
                                        * cos(2 * pi() * (cityHash64(number, {seed:UInt32}, 2) % 1000003) / 1000003)) AS lat
              FROM numbers({n:UInt32}))`,
      query_params: { run: run.id, level: 2 ** (l - 1), started, span: STEP_MS, n: perLevel, median: 5 * (seed === 2 ? 1.05 : 1) * Math.max(1, 2 ** (l - 1) / 8), seed: seed * 100 + l },
    });
  }
  return run.id;
}

/** The two runs of one size, stored once per data directory (a marker file keeps their ids). */
async function runsOf(db: Db, perLevel: number): Promise<{ base: string; head: string }> {
  const marker = `${dataDir}/runs-${perLevel}.json`;
  if (existsSync(marker)) return JSON.parse(readFileSync(marker, 'utf8')) as { base: string; head: string };
  const runs = { base: await storeRun(db, perLevel, 'v1', 1), head: await storeRun(db, perLevel, 'v2', 2) };
  writeFileSync(marker, JSON.stringify(runs));
  return runs;
}

/** A handle on the same storage whose caches (kept per handle) start empty, counting its statements. */
function freshHandle(db: Db): { db: Db; statements: () => number } {
  let n = 0;
  const client = new Proxy(db.client, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (prop === 'query' || prop === 'command') n++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { db: { ...db, client }, statements: () => n };
}

const db = openDb({ mode: 'embedded', path: dataDir });
await migrate(db);
const rows: Array<Record<string, string | number>> = [];
let effect = 0.02;
for (const perLevel of sizes) {
  const { base, head } = await runsOf(db, perLevel);
  for (const kind of ['cold', 'repeated'] as const) {
    const ms: number[] = [];
    let statements = 0;
    let names = 0;
    const warm = freshHandle(db);
    for (let round = 0; round < ROUNDS; round++) {
      const h = kind === 'cold' ? freshHandle(db) : warm;
      if (kind === 'repeated' && round === 0) await buildComparison(h.db, { base: [base], head: [[head]], min_effect: (effect += 0.001) });
      const before = h.statements();
      const t = performance.now();
      const { report: r } = await buildComparison(h.db, { base: [base], head: [[head]], min_effect: (effect += 0.001) });
      ms.push(performance.now() - t);
      statements = h.statements() - before;
      names = r.endpoints?.names.length ?? 0;
    }
    rows.push({ label, requests_per_level: perLevel, per_name_level: perLevel / NAMES, read: kind, names, statements, median_ms: Math.round(quantile(ms, 0.5)), rounds: ROUNDS });
  }
}
await db.close();

// Keep the other label's rows (the before/after table is two invocations).
const file = fileURLToPath(new URL('./results/compare-endpoints.json', import.meta.url));
const kept = existsSync(file) ? ((JSON.parse(readFileSync(file, 'utf8')) as { rows?: Array<Record<string, string | number>> }).rows ?? []).filter((r) => r.label !== label) : [];
report('compare-endpoints', [...kept, ...rows], { load: loadavg(), note: 'buildComparison in-process, bootstraps in this thread; statements = ClickHouse queries and commands issued' });
