/**
 * Two runs of 10,000,000 requests each (10 levels × 1,000,000, 30 s per level) stored, then the
 * reads timed through the real API: the curve (rollup and exact), the runs list and the
 * comparison, and the rollup's largest relative error against exact over every percentile.
 * Rows go in with `INSERT … SELECT FROM numbers()` (the rollup's view runs on them as on any
 * insert), so the bench times the reads, not the ingest path (bench/ingest.bench.ts does that).
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/scale.bench.ts [--per-level 1000000] [--levels 10] [--modes embedded,server]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServerProcess } from '@kneeboard/api/spawn';
import { insertRun, migrate, openDb, upsertStep, type Db, type StorageConfig } from '@kneeboard/clickhouse';
import { startClickHouseServer } from '@kneeboard/clickhouse-server';
import { RunDetail, type CurvePoint } from '@kneeboard/contracts';
import { quantile, report } from './lib/report.ts';

const { values } = parseArgs({
  options: { 'per-level': { type: 'string', default: '1000000' }, levels: { type: 'string', default: '10' }, modes: { type: 'string', default: 'embedded,server' } },
});
const perLevel = Number(values['per-level']);
const levels = Number(values.levels);
const modes = (values.modes ?? '').split(',');
const STEP_MS = 30_000;
const WARMUP_MS = 2_000;

/** One run: per level a step whose window starts and ends mid-second, lognormal latencies whose median grows with the level. */
async function storeRun(db: Db, release: string, seed: number, slower: number): Promise<string> {
  const run = await insertRun(db, { service: 'scale-bench', release, load_model: 'closed', parameter: 'concurrency', tags: {} });
  const t0 = 1_800_000_000_000 + seed * 10_000_000;
  for (let l = 1; l <= levels; l++) {
    const started = t0 + (l - 1) * (STEP_MS + WARMUP_MS + 1_000) + 137.25;
    await upsertStep(db, run.id, { level: 2 ** (l - 1), started_at: started, measure_from: started + WARMUP_MS, ended_at: started + WARMUP_MS + STEP_MS, health: null });
    await db.client.command({
      query: `INSERT INTO kb_requests_v1 (run_id, agent_id, level, ts_ms, latency_ms, compute_ms, queue_ms, status)
        SELECT {run:UUID}, 'bench', {level:Float64}, {started:Float64} + number * {span:Float64} / {n:UInt32},
               lat, lat * 0.7, if(number % 10 = 0, NULL, lat * 0.2), if(number % 200 = 0, 503, 200)
        FROM (SELECT number, {median:Float64} * exp(0.4 * sqrt(-2 * log((cityHash64(number, {seed:UInt32}, 1) % 1000003 + 1) / 1000004))
                                        * cos(2 * pi() * (cityHash64(number, {seed:UInt32}, 2) % 1000003) / 1000003)) AS lat
              FROM numbers({n:UInt32}))`,
      query_params: { run: run.id, level: 2 ** (l - 1), started, span: WARMUP_MS + STEP_MS, n: perLevel, median: 5 * slower * Math.max(1, 2 ** (l - 1) / 8), seed: seed * 100 + l },
    });
  }
  return run.id;
}

async function timed(n: number, f: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  return ms;
}

async function json(url: string): Promise<unknown> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

const PERCENTILES = ['p50_ms', 'p90_ms', 'p99_ms', 'p999_ms', 'compute_p50_ms', 'compute_p99_ms', 'queue_p50_ms', 'queue_p99_ms', 'other_p50_ms'] as const;

function maxRelativeError(rollup: CurvePoint[], exact: CurvePoint[]): number {
  let worst = 0;
  for (const [i, e] of exact.entries()) {
    const r = rollup[i] as CurvePoint;
    if (r.requests !== e.requests) throw new Error(`level ${e.level}: rollup counts ${r.requests}, exact ${e.requests}`);
    for (const k of PERCENTILES) worst = Math.max(worst, Math.abs((r[k] as number) / (e[k] as number) - 1));
  }
  return worst;
}

const rows: Array<Record<string, string | number>> = [];
for (const mode of modes) {
  const dataDir = mkdtempSync(join(tmpdir(), 'kb-bench-scale-'));
  const server = mode === 'server' ? await startClickHouseServer() : null;
  const storage: StorageConfig = server ? { mode: 'server', url: server.url, username: 'default', password: '', database: 'default' } : { mode: 'embedded', path: dataDir };
  try {
    // The bench writes the rows itself, then hands the data to the API (embedded: one process per data directory).
    const db = openDb(storage);
    await migrate(db);
    const t = performance.now();
    const base = await storeRun(db, 'v1', 1, 1);
    const head = await storeRun(db, 'v2', 2, 1.05);
    const storeS = (performance.now() - t) / 1000;
    await db.close();

    const api = await startServerProcess(server ? { CLICKHOUSE_URL: server.url } : { KNEEBOARD_DATA_DIR: dataDir }, 120_000);
    try {
      const detail = async (q: string) => RunDetail.parse(await json(`${api.url}/api/v1/runs/${base}${q}`));
      const auto = await detail('');
      if (auto.percentiles !== 'rollup') throw new Error(`expected the rollup for a run this large, got ${auto.percentiles}`);
      const curveMs = await timed(20, () => detail(''));
      const exactMs = await timed(2, () => detail('?exact=1'));
      const listMs = await timed(20, () => json(`${api.url}/api/v1/runs`));
      const compareMs = await timed(2, () => json(`${api.url}/api/v1/compare?base=${base}&head=${head}`));
      const error = maxRelativeError((await detail('?exact=0')).curve, (await detail('?exact=1')).curve);
      const requests = auto.curve.reduce((s, p) => s + p.requests, 0);
      const tag = `${mode}: 2 runs × ${levels} levels × ${perLevel.toLocaleString('en')}, load average ${loadavg()[0]?.toFixed(1)}`;
      rows.push(
        { mode, measure: 'store both runs (INSERT … SELECT, rollup view on)', value: storeS, unit: 's', detail: tag },
        { mode, measure: 'curve p50 (GET /runs/{id}, rollup)', value: quantile(curveMs, 0.5), unit: 'ms', detail: `max ${Math.max(...curveMs).toFixed(0)} ms, ${requests} requests in windows` },
        { mode, measure: 'curve p50 (GET /runs/{id}?exact=1)', value: quantile(exactMs, 0.5), unit: 'ms', detail: 'every raw row' },
        { mode, measure: 'runs list p50 (GET /runs)', value: quantile(listMs, 0.5), unit: 'ms', detail: `max ${Math.max(...listMs).toFixed(0)} ms` },
        { mode, measure: 'comparison p50 (GET /compare)', value: quantile(compareMs, 0.5), unit: 'ms', detail: 'bootstrap from raw samples (samples.ts), unchanged' },
        { mode, measure: 'rollup vs exact, worst relative error', value: error * 100, unit: '%', detail: `${PERCENTILES.length} percentiles × ${levels} levels` },
      );
    } finally {
      await api.stop();
    }
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
report('scale', rows, { per_level: perLevel, levels, runs: 2 });
