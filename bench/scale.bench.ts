/**
 * Two runs of 10,000,000 requests each (10 levels × 1,000,000, 30 s per level) stored, then the
 * reads timed through the real API: the curve (rollup and exact), the runs list and the
 * comparison, each cold (the first request a fresh API process answers) and warm (p50 of repeats:
 * results are kept per version of a run's data), and the rollup's largest relative error against
 * exact over every percentile. Next to each API figure, the same work done in this process straight
 * on the engine (a fresh handle, so cold) — a peer ratio that stays meaningful on a loaded box.
 * Rows go in with `INSERT … SELECT FROM numbers()` (bench/scale-data.ts), so the bench times the
 * reads, not the ingest path (bench/ingest.bench.ts does that).
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/scale.bench.ts [--per-level 1000000] [--levels 10] [--modes embedded,server]
 *     [--data-dir /tmp/kb-scale/data]   keep the embedded data set there and reuse it (not deleted)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServerProcess } from '@kneeboard/api/testing';
import { openDb, queryComparisonSamples, queryCurve, queryRollupCurve, queryRunSummaries, type StorageConfig } from '@kneeboard/clickhouse';
import { startClickHouseServer } from '@kneeboard/clickhouse-server';
import { CompareResponse, RunDetail, type CurvePoint } from '@kneeboard/contracts';
import { quantile, report } from './lib/report.ts';
import { ensureScaleData } from './scale-data.ts';

const { values } = parseArgs({
  options: {
    'per-level': { type: 'string', default: '1000000' },
    levels: { type: 'string', default: '10' },
    modes: { type: 'string', default: 'embedded,server' },
    'data-dir': { type: 'string' },
  },
});
const perLevel = Number(values['per-level']);
const levels = Number(values.levels);
const modes = (values.modes ?? '').split(',');

async function timed(n: number, f: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  return ms;
}

async function once(f: () => Promise<unknown>): Promise<number> {
  return (await timed(1, f))[0] as number;
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

const load = () => loadavg()[0]?.toFixed(1) ?? '?';
const rows: Array<Record<string, string | number>> = [];
for (const mode of modes) {
  const kept = mode === 'embedded' ? values['data-dir'] : undefined;
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'kb-bench-scale-'));
  const server = mode === 'server' ? await startClickHouseServer() : null;
  const storage: StorageConfig = server ? { mode: 'server', url: server.url, username: 'default', password: '', database: 'default' } : { mode: 'embedded', path: dataDir };
  try {
    // The bench writes the rows itself, then hands the data to the API (embedded: one process per data directory).
    const db = openDb(storage);
    const data = await ensureScaleData(db, dataDir, levels, perLevel);
    const { base, head } = data;
    // Peer: the same work on the engine directly, in this process, with nothing kept yet.
    const direct = {
      curve: await once(() => queryCurve(db, base, 'rollup')),
      list: await once(() => queryRunSummaries(db, [base, head])),
      samples: await once(() => Promise.all([queryComparisonSamples(db, base, 'rollup'), queryComparisonSamples(db, head, 'rollup')])),
    };
    // The curve's own computation, repeated with nothing kept (no result cache): what every read
    // would cost if the run changed between any two of them.
    const computedMs = await timed(20, () => queryRollupCurve(db, base));
    await db.close();

    const api = await startServerProcess(server ? { CLICKHOUSE_URL: server.url } : { KNEEBOARD_DATA_DIR: dataDir }, 120_000);
    try {
      const detail = async (q: string) => RunDetail.parse(await json(`${api.url}/api/v1/runs/${base}${q}`));
      const compare = async () => CompareResponse.parse(await json(`${api.url}/api/v1/compare?base=${base}&head=${head}`));
      const loadAtStart = load();
      const curveCold = await once(() => detail(''));
      const auto = await detail('');
      if (auto.percentiles !== 'rollup') throw new Error(`expected the rollup for a run this large, got ${auto.percentiles}`);
      const curveMs = await timed(20, () => detail(''));
      // The first read of a run in an API process that is already running: the case of a team
      // server, where a run changes (or is opened) while the process is warm. No read before this
      // one touched the head run's curve.
      const headCurveFirst = await once(async () => RunDetail.parse(await json(`${api.url}/api/v1/runs/${head}`)));
      const exactMs = await timed(2, () => detail('?exact=1'));
      const listCold = await once(() => json(`${api.url}/api/v1/runs`));
      const listMs = await timed(20, () => json(`${api.url}/api/v1/runs`));
      const compareCold = await once(compare);
      const compareMs = await timed(5, compare);
      const samplesSource = (await compare()).settings.samples ?? 'absent';
      const error = maxRelativeError((await detail('?exact=0')).curve, (await detail('?exact=1')).curve);
      const requests = auto.curve.reduce((s, p) => s + p.requests, 0);
      const tag = `${mode}: 2 runs × ${levels} levels × ${perLevel.toLocaleString('en')}`;
      rows.push(
        { mode, measure: 'store both runs (INSERT … SELECT, rollup view on)', value: data.store_s, unit: 's', detail: kept ? `${tag}, kept in ${kept} (stored earlier)` : tag },
        { mode, measure: 'curve, cold (first GET /runs/{id}, rollup)', value: curveCold, unit: 'ms', detail: `engine direct ${direct.curve.toFixed(0)} ms; load ${loadAtStart}` },
        { mode, measure: 'curve, first read of a run, API process warm', value: headCurveFirst, unit: 'ms', detail: `the other run, after the reads above; load ${load()}` },
        { mode, measure: 'curve computed p50, nothing kept (engine direct, rollup)', value: quantile(computedMs, 0.5), unit: 'ms', detail: `max ${Math.max(...computedMs).toFixed(0)} ms, 20 computations; load ${load()}` },
        { mode, measure: 'curve p50, warm (GET /runs/{id}, rollup)', value: quantile(curveMs, 0.5), unit: 'ms', detail: `max ${Math.max(...curveMs).toFixed(0)} ms, ${requests} requests in windows; load ${load()}` },
        { mode, measure: 'curve p50 (GET /runs/{id}?exact=1)', value: quantile(exactMs, 0.5), unit: 'ms', detail: `every raw row; load ${load()}` },
        { mode, measure: 'runs list, cold (GET /runs)', value: listCold, unit: 'ms', detail: `engine direct (summaries) ${direct.list.toFixed(0)} ms; load ${load()}` },
        { mode, measure: 'runs list p50, warm (GET /runs)', value: quantile(listMs, 0.5), unit: 'ms', detail: `max ${Math.max(...listMs).toFixed(0)} ms; load ${load()}` },
        { mode, measure: 'comparison, cold (GET /compare)', value: compareCold, unit: 'ms', detail: `samples: ${samplesSource}; engine direct (samples of both) ${direct.samples.toFixed(0)} ms; load ${load()}` },
        { mode, measure: 'comparison p50, warm (GET /compare)', value: quantile(compareMs, 0.5), unit: 'ms', detail: `max ${Math.max(...compareMs).toFixed(0)} ms; load ${load()}` },
        { mode, measure: 'rollup vs exact, worst relative error', value: error * 100, unit: '%', detail: `${PERCENTILES.length} percentiles × ${levels} levels` },
      );
    } finally {
      await api.stop();
    }
  } finally {
    await server?.stop();
    if (!kept) rmSync(dataDir, { recursive: true, force: true });
  }
}
report('scale', rows, { per_level: perLevel, levels, runs: 2 });
