/**
 * The per-endpoint summary of a comparison (`GET /compare`'s `endpoints`): two runs of 20 request
 * names × 5 levels, compared whole (the summary included) through the API's own buildComparison
 * (bootstraps in this thread), timed and its ClickHouse statements counted:
 * - cold: a fresh storage handle (the API's caches empty: the run details, the name curves);
 * - repeated: the same handle again, with another min_effect so the kept report is not the answer.
 * Sizes: requests per level over all 20 names (`KB_BENCH_PER_LEVEL`, comma separated).
 * Before/after in the same data and the same process, round by round alternated (the box's load
 * moves): `KB_BENCH_BEFORE` names another compare module to time beside the current one, e.g. the
 * previous version copied beside it:
 *   git show ed3e652:apps/api/src/services/compare.ts > apps/api/src/services/compare-before-bench.ts
 *   KB_BENCH_BEFORE=$PWD/apps/api/src/services/compare-before-bench.ts flock /tmp/kb-bench.lock npx tsx bench/compare-endpoints.bench.ts
 * It also times the endpoint analysis (GET /runs/{id}'s `endpoints`, each live snapshot read from
 * storage) both ways on the base run: results/endpoint-analysis-reads.json.
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
const sizes = (process.env.KB_BENCH_PER_LEVEL ?? '10000,200000').split(',').map(Number);
const current = fileURLToPath(new URL('../apps/api/src/services/compare.ts', import.meta.url));
const before = process.env.KB_BENCH_BEFORE;

type Build = (db: Db, query: { base: string[]; head: string[][]; min_effect: number }) => Promise<{ report: { endpoints?: { names: unknown[] } } }>;
const builds: Array<{ label: string; build: Build }> = [];
for (const [label, path] of [...(before ? [['before', before]] : []), ['after', current]] as const) builds.push({ label, build: ((await import(path)) as { buildComparison: Build }).buildComparison });

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
    const ms = new Map(builds.map((b) => [b.label, [] as number[]]));
    const statements = new Map<string, number>();
    const names = new Map<string, number>();
    const warm = new Map(builds.map((b) => [b.label, freshHandle(db)]));
    if (kind === 'repeated') for (const b of builds) await b.build(warm.get(b.label)!.db, { base: [base], head: [[head]], min_effect: (effect += 0.001) });
    for (let round = 0; round < ROUNDS; round++) {
      for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
        const h = kind === 'cold' ? freshHandle(db) : warm.get(b.label)!;
        const start = h.statements();
        const t = performance.now();
        const { report: r } = await b.build(h.db, { base: [base], head: [[head]], min_effect: (effect += 0.001) });
        ms.get(b.label)!.push(performance.now() - t);
        statements.set(b.label, h.statements() - start);
        names.set(b.label, r.endpoints?.names.length ?? 0);
      }
    }
    for (const b of builds) {
      rows.push({ label: b.label, requests_per_level: perLevel, per_name_level: perLevel / NAMES, read: kind, names: names.get(b.label)!, statements: statements.get(b.label)!, median_ms: Math.round(quantile(ms.get(b.label)!, 0.5)), rounds: ROUNDS });
    }
  }
}

// The endpoint analysis (GET /runs/{id}'s `endpoints`, and each live snapshot read from storage):
// every name's curve read one by one (as before) against one grouped read, on the base run.
const analysisRows: Array<Record<string, string | number>> = [];
{
  const { loadRunDetail } = await import('../apps/api/src/services/run-detail.ts');
  const { endpointAnalysis } = await import('../apps/api/src/services/endpoint-analysis.ts');
  const { analyzeEndpoints } = await import('@kneeboard/analysis');
  const { queryCurve } = await import('@kneeboard/clickhouse');
  for (const perLevel of sizes) {
    const { base } = await runsOf(db, perLevel);
    const total = (await loadRunDetail(db, base))!;
    const names = total.names ?? [];
    const perName = async (h: Db) => {
      const curves = [];
      for (const n of names) curves.push({ name: n.name, requests: n.requests, curve: (await queryCurve(h, base, 'auto', n.name)).curve });
      return analyzeEndpoints({ runKnee: total.analysis.knee?.level ?? null, levels: total.curve.map((p) => p.level), load_model: total.run.load_model, parameter: total.run.parameter, names: curves });
    };
    for (const [way, run] of [['one read per name', perName], ['one grouped read', (h: Db) => endpointAnalysis(h, total, 'auto')]] as const) {
      const ms: number[] = [];
      let statements = 0;
      for (let round = 0; round < ROUNDS + 1; round++) {
        const h = freshHandle(db);
        const t = performance.now();
        await run(h.db);
        if (round > 0) ms.push(performance.now() - t);
        statements = h.statements();
      }
      analysisRows.push({ requests_per_level: perLevel, names: names.length, read: way, statements, median_ms: Math.round(quantile(ms, 0.5)), rounds: ROUNDS });
    }
  }
}
await db.close();
if (analysisRows.length > 0) report('endpoint-analysis-reads', analysisRows, { load: loadavg(), note: "GET /runs/{id}'s endpoints analysis on the compare bench's base run; first round dropped" });

report('compare-endpoints', rows, { load: loadavg(), note: 'buildComparison in-process, bootstraps in this thread, before/after alternated round by round; statements = ClickHouse queries and commands issued' });
