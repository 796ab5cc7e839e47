/**
 * One run of 100,000,000 requests (10 levels × 10M, 30 s windows) on the embedded engine: how
 * long the engine takes to store it (`INSERT … SELECT`, the rollup view on — the engine's side of
 * ingest, not the API's), the disk bytes per event (raw table and rollup, after merges settle as
 * they will), the curve: cold (a fresh handle) and kept, and the exact curve read from raw rows
 * (cold, a fresh handle). The data directory is deleted after. The raw table is whichever of
 * kb_request_events_v1 (µs, since 090) and kb_requests_v1 (Float64 ms, before) holds the rows, so
 * the same program measures a checkout from before the move.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/scale-100m.bench.ts [--per-level 10000000] [--levels 10]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { migrate, openDb, queryCurve } from '@kneeboard/clickhouse';
import { report } from './lib/report.ts';
import { storeRun } from './scale-data.ts';

const { values } = parseArgs({ options: { 'per-level': { type: 'string', default: '10000000' }, levels: { type: 'string', default: '10' } } });
const perLevel = Number(values['per-level']);
const levels = Number(values.levels);
const load = () => loadavg()[0]?.toFixed(1) ?? '?';

const dir = mkdtempSync(join(tmpdir(), 'kb-bench-100m-'));
const rows: Array<Record<string, string | number>> = [];
try {
  let db = openDb({ mode: 'embedded', path: dir });
  await migrate(db);
  const loadBefore = load();
  let t = performance.now();
  const run = await storeRun(db, levels, perLevel, 'v1', 7, 1);
  const storeS = (performance.now() - t) / 1000;
  const events = levels * perLevel;
  const partRows = await (
    await db.client.query({
      query: `SELECT table, sum(bytes_on_disk) AS bytes, sum(rows) AS rows, count() AS parts FROM system.parts
              WHERE active AND database = currentDatabase() AND table IN ('kb_requests_v1', 'kb_request_events_v1', 'kb_request_seconds_v1') GROUP BY table`,
      format: 'JSONEachRow',
    })
  ).json<{ table: string; bytes: string; rows: string; parts: string }>();
  // 64-bit integers arrive as strings.
  const parts = partRows.map((p) => ({ table: p.table, bytes: Number(p.bytes), rows: Number(p.rows), parts: Number(p.parts) }));
  await db.close();
  db = openDb({ mode: 'embedded', path: dir });
  t = performance.now();
  const cold = await queryCurve(db, run, 'rollup');
  const coldMs = performance.now() - t;
  t = performance.now();
  await queryCurve(db, run, 'rollup');
  const keptMs = performance.now() - t;
  await db.close();
  db = openDb({ mode: 'embedded', path: dir });
  t = performance.now();
  const exact = await queryCurve(db, run, 'exact');
  const exactMs = performance.now() - t;
  await db.close();
  const requests = cold.curve.reduce((s, p) => s + p.requests, 0);
  const raw = parts.find((p) => p.table !== 'kb_request_seconds_v1' && p.rows > 0);
  const rollup = parts.find((p) => p.table === 'kb_request_seconds_v1');
  rows.push(
    { measure: 'store (INSERT … SELECT, rollup view on)', value: storeS, unit: 's', detail: `${(events / storeS / 1e6).toFixed(2)}M events/s; load ${loadBefore} → ${load()}` },
    { measure: 'disk, raw table', value: (raw?.bytes ?? 0) / events, unit: 'B/event', detail: `${raw?.table}: ${((raw?.bytes ?? 0) / 2 ** 30).toFixed(2)} GiB, ${raw?.parts} parts` },
    { measure: 'disk, rollup', value: (rollup?.bytes ?? 0) / events, unit: 'B/event', detail: `${((rollup?.bytes ?? 0) / 2 ** 20).toFixed(1)} MiB, ${rollup?.rows} rows` },
    { measure: 'curve, cold (engine direct, rollup)', value: coldMs, unit: 'ms', detail: `${requests} requests in windows; load ${load()}` },
    { measure: 'curve, kept (engine direct)', value: keptMs, unit: 'ms', detail: 'one version read' },
    { measure: 'exact curve, cold (engine direct, raw rows)', value: exactMs, unit: 'ms', detail: `${exact.curve.reduce((s, p) => s + p.requests, 0)} requests; load ${load()}` },
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
report('scale-100m', rows, { per_level: perLevel, levels });
