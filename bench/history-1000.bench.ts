/**
 * A service's history at scale (issue 29): 1,000 finished runs of one service (50 releases × 20
 * runs, peak QPS 10% lower from release 30 on) stored through the real API on a ClickHouse server,
 * then `GET /services/{service}/history` timed cold (every run's features computed from the
 * rollup), warm (nothing changed: one read of the runs' data versions, the kept answer), and after
 * one more run finishes (that run's features computed, the series and change points recomputed).
 * Issue 29's target: ≤ 200 ms for the series of a service with 1,000 runs.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/history-1000.bench.ts
 *   env: HISTORY_RUNS (1000), HISTORY_RELEASES (50), HISTORY_WARM (5)
 */
import { startServerProcess, storeSyntheticRun } from '@kneeboard/api/testing';
import { startClickHouseServer } from '@kneeboard/clickhouse-server';
import { ServiceHistoryResponse } from '@kneeboard/contracts';
import { loadAverage } from './lib/process-cpu.ts';
import { quantile, report } from './lib/report.ts';

const RUNS = Number(process.env.HISTORY_RUNS ?? 1000);
const RELEASES = Number(process.env.HISTORY_RELEASES ?? 50);
const WARM = Number(process.env.HISTORY_WARM ?? 5);
const SERVICE = 'history-bench';
const STORE_CONCURRENCY = 4;

const clickhouse = await startClickHouseServer();
const api = await startServerProcess({ CLICKHOUSE_URL: clickhouse.url }, 120_000);
try {
  const perRelease = Math.ceil(RUNS / RELEASES);
  const started = performance.now();
  // Releases in order (a release's place is its first run's creation time); its runs side by side.
  for (let r = 0; r < RELEASES; r++) {
    const seeds = Array.from({ length: perRelease }, (_, k) => r * perRelease + k).filter((s) => s < RUNS);
    for (let i = 0; i < seeds.length; i += STORE_CONCURRENCY) {
      await Promise.all(
        seeds.slice(i, i + STORE_CONCURRENCY).map((seed) =>
          storeSyntheticRun(api.url, { seed: seed + 1, service: SERVICE, release: `v${r + 1}`, levels: [1, 2, 4, 8], seconds: 1, workers: 4, qpsScale: r >= 30 ? 0.9 : 1 }),
        ),
      );
    }
    if ((r + 1) % 10 === 0) console.log(`stored ${Math.min(RUNS, (r + 1) * perRelease)} runs (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }

  const get = async () => {
    const t0 = performance.now();
    const res = await fetch(`${api.url}/api/v1/services/${SERVICE}/history`);
    const body = ServiceHistoryResponse.parse(await res.json());
    return { ms: performance.now() - t0, body, phases: res.headers.get('server-timing') ?? '' };
  };
  const rows: Array<Record<string, string | number>> = [];
  const load = loadAverage();
  const cold = await get();
  rows.push({ read: 'cold (every run computed)', runs: cold.body.runs_read, 'ms (median)': Math.round(cold.ms), reads: 1, 'server phases (ms)': cold.phases, load });
  const warm: Array<Awaited<ReturnType<typeof get>>> = [];
  for (let i = 0; i < WARM; i++) warm.push(await get());
  const median = warm.toSorted((a, b) => a.ms - b.ms)[Math.floor(WARM / 2)]!;
  rows.push({ read: 'warm (nothing changed)', runs: cold.body.runs_read, 'ms (median)': Math.round(quantile(warm.map((w) => w.ms), 0.5)), reads: WARM, 'server phases (ms)': median.phases, load: loadAverage() });
  await storeSyntheticRun(api.url, { seed: RUNS + 1, service: SERVICE, release: `v${RELEASES + 1}`, levels: [1, 2, 4, 8], seconds: 1, workers: 4, qpsScale: 0.9 });
  const after = await get();
  rows.push({ read: 'after one more run finished', runs: after.body.runs_read, 'ms (median)': Math.round(after.ms), reads: 1, 'server phases (ms)': after.phases, load: loadAverage() });
  const points = cold.body.series[0]?.change_points.filter((c) => c.feature === 'peak_qps').map((c) => `${c.previous_release}→${c.release} ×${c.ratio.toFixed(3)}`) ?? [];
  console.log(`peak QPS change points: ${points.join(', ') || 'none'} (true: v30→v31 ×0.900)`);
  report('history-1000', rows, { runs: RUNS, releases: RELEASES, change_points: points, target_ms: 200 });
} finally {
  await api.stop();
  await clickhouse.stop();
}
