/**
 * How long from a request being done to it being on the chart, while the API ingests at half the
 * engine's own insert ceiling and 20 viewers watch the run live (target: lag p95 ≤ 1 s).
 *
 * The ceiling is measured first, in the same run, per engine: the same 20,000-event Arrow batches
 * inserted straight into the migrated tables (rollup view and all), no API, for `--ceiling-seconds`
 * — on the embedded engine as its store does at best (`--senders` batches per insert, ledger rows
 * first, one insert at a time), on a server `--senders` inserts side by side. `--rate` (events/s)
 * overrides half the ceiling. On the embedded engine a second table compares, at the same moments
 * and in one process while `--senders` loops store batches through the EventStore as fast as it
 * takes them, what a live snapshot's figures cost: from the store's memory, or by the queries a
 * snapshot made before (run, steps, curve), which wait behind the inserts.
 *
 * The real API process (embedded ClickHouse, or a ClickHouse server with --modes server) on
 * loopback. `--senders` loops post Arrow batches as an agent would: each batch holds the requests
 * done since the previous batch was cut, at `--rate` a second, stamped with the wall clock, so a
 * batch that waits for the API carries older requests (the lag counts that wait). `--viewers`
 * streams of GET /runs/{id}/live read every snapshot. A snapshot shows the level's window up to its
 * newest request; the requests done between the previous snapshot's newest and this one's appear
 * with it, so each viewer's lag for them runs from (arrival − newest) to (arrival − previous
 * newest), spread evenly over that span (the requests are evenly spaced). The percentiles are over
 * requests × viewers. The senders, the viewers and the API share this box's cores.
 *
 *   flock /tmp/kb-bench.lock pnpm --filter @kneeboard/bench exec tsx live-lag-at-rate.bench.ts
 *        [--seconds 20] [--ceiling-seconds 5] [--rate N] [--viewers 20] [--senders 4] [--modes embedded,server]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { getRun, insertEventBatch, insertEventGroup, insertRun, listSteps, migrate, openDb, openEventStore, queryCurve, upsertStep, writeLedger, type Db } from '@kneeboard/clickhouse';
import { startServerProcess } from '@kneeboard/api/testing';
import { startClickHouseServer, type ClickHouseServer } from '@kneeboard/clickhouse-server';
import { ARROW_STREAM_CONTENT_TYPE, MAX_BATCH_EVENTS } from '@kneeboard/contracts';
import { allocateColumns, encodeArrowColumns, type EventColumns } from '@kneeboard/event-wire';
import { Pool } from 'undici';
import { newestShown, readLiveSnapshots } from './lib/live-snapshots.ts';
import { cpuSeconds, loadAverage } from './lib/process-cpu.ts';
import { quantile, report } from './lib/report.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    'ceiling-seconds': { type: 'string', default: '5' },
    rate: { type: 'string' },
    viewers: { type: 'string', default: '20' },
    senders: { type: 'string', default: '4' },
    modes: { type: 'string', default: 'embedded,server' },
  },
});
const seconds = Number(values.seconds);
const ceilingSeconds = Number(values['ceiling-seconds']);
const viewers = Number(values.viewers);
const senders = Number(values.senders);
/** The first seconds fill the caches and the rollup; lag is counted after them. */
const SETTLE_MS = 3_000;

/** `count` requests done evenly over (from, to], wall-clock stamps, 1–9 ms latencies. */
function batchColumns(from: number, to: number, count: number): EventColumns {
  const c = allocateColumns(count);
  const dt = (to - from) / count;
  for (let i = 0; i < count; i++) {
    const latency = 1 + (i % 9);
    c.level[i] = 1;
    // ts_ms is when the request was sent; it was done `latency` later.
    c.ts_ms[i] = from + (i + 1) * dt - latency;
    c.latency_ms[i] = latency;
    c.compute_ms[i] = latency * 0.8;
    c.queue_ms[i] = latency * 0.1;
    c.status[i] = 200;
  }
  return c;
}

const batchBody = (from: number, to: number, count: number): Uint8Array => encodeArrowColumns(batchColumns(from, to, count));

/** The ceiling's batch: 20,000 requests over the last second, one level. */
const CEILING_BATCH = 20_000;

/**
 * The engine's own insert rate (events/s) for `--senders` batches at a time, no API, for
 * `ceilingSeconds`. Embedded: into a data directory of this process's own.
 */
async function engineCeiling(server: ClickHouseServer | null): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kb-bench-ceiling-'));
  if (server) {
    // Its own database, so the API measured after it starts on empty tables.
    const admin = openDb({ mode: 'server', url: server.url, username: 'default', password: '', database: 'default' });
    await admin.client.command({ query: 'CREATE DATABASE IF NOT EXISTS ceiling' });
    await admin.close();
  }
  const db: Db = server ? openDb({ mode: 'server', url: server.url, username: 'default', password: '', database: 'ceiling' }) : openDb({ mode: 'embedded', path: dir });
  try {
    await migrate(db);
    const runId = '00000000-0000-4000-8000-000000000000';
    const now = Date.now();
    const arrow = batchBody(now - 1_000, now, CEILING_BATCH);
    let events = 0;
    let n = 0;
    const started = performance.now();
    const until = started + ceilingSeconds * 1000;
    if (server) {
      await Promise.all(
        Array.from({ length: senders }, async () => {
          while (performance.now() < until) {
            await insertEventBatch(db, { runId, batchId: `c-${n++}`, agentId: 'bench', arrow });
            events += CEILING_BATCH;
          }
        }),
      );
    } else {
      while (performance.now() < until) {
        const group = Array.from({ length: senders }, () => ({ runId, batchId: `c-${n++}`, agentId: 'bench', arrow }));
        const token = `group-${n}`;
        await writeLedger(db, group.map((g) => ({ run_id: runId, batch_id: g.batchId, agent_id: 'bench', events: CEILING_BATCH, content_hash: '', received_at: Date.now(), group_token: token })));
        await insertEventGroup(db, token, group);
        events += CEILING_BATCH * group.length;
      }
    }
    return events / ((performance.now() - started) / 1000);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The embedded store at its own pace, and a snapshot's figures read both ways every 100 ms. */
async function snapshotCost(): Promise<Record<string, string | number>> {
  const dir = mkdtempSync(join(tmpdir(), 'kb-bench-snapshot-'));
  const db = openDb({ mode: 'embedded', path: dir });
  try {
    await migrate(db);
    const run = await insertRun(db, { service: 'bench', release: 'snapshot-cost', load_model: 'closed', parameter: 'concurrency', tags: {} });
    const start = Date.now();
    await upsertStep(db, run.id, { level: 1, started_at: start - 60_000, measure_from: start - 60_000, ended_at: null });
    const store = openEventStore(db);
    const live = store.live;
    if (!live) throw new Error('the embedded store keeps live figures');
    const columns = batchColumns(start - 1_000, start, CEILING_BATCH);
    const arrow = encodeArrowColumns(columns);
    await live.curve(run.id);
    let n = 0;
    let events = 0;
    const until = performance.now() + ceilingSeconds * 1000;
    const memoryMs: number[] = [];
    const queryMs: number[] = [];
    const started = performance.now();
    await Promise.all([
      ...Array.from({ length: senders }, async () => {
        while (performance.now() < until) {
          await store.store({ runId: run.id, batchId: `s-${n++}`, agentId: 'bench', columns, arrow, receivedAt: Date.now() });
          events += CEILING_BATCH;
        }
      }),
      (async () => {
        while (performance.now() < until) {
          let t = performance.now();
          await live.curve(run.id);
          memoryMs.push(performance.now() - t);
          t = performance.now();
          await Promise.all([getRun(db, run.id), listSteps(db, run.id), queryCurve(db, run.id, 'rollup')]);
          queryMs.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 100));
        }
      })(),
    ]);
    return {
      mode: 'embedded',
      'stored events/s': Math.round(events / ((performance.now() - started) / 1000)),
      probes: memoryMs.length,
      'memory p50 ms': quantile(memoryMs, 0.5),
      'memory p95 ms': quantile(memoryMs, 0.95),
      'queries p50 ms': quantile(queryMs, 0.5),
      'queries p95 ms': quantile(queryMs, 0.95),
      'load avg': loadAverage().toFixed(2),
    };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Lags {
  /** Lag samples, one per millisecond of requests per viewer (evenly spaced requests: equal weight). */
  lagMs: number[];
  snapshots: number;
  viewersLost: number;
}

async function watch(url: string, runId: string, stop: AbortSignal, countFrom: number, lags: Lags): Promise<void> {
  try {
    const res = await fetch(`${url}/api/v1/runs/${runId}/live`, { signal: stop });
    if (res.status !== 200 || !res.body) throw new Error(`live answered ${res.status}`);
    let previous: number | undefined;
    await readLiveSnapshots(res.body, (detail, arrival) => {
      lags.snapshots++;
      // One level runs here. Its window reaches the newest request's send time; that request was
      // done up to 9 ms later, so the lags counted from the send time are at most 9 ms long.
      const newest = newestShown(detail)[0]?.newest;
      if (newest === undefined) return;
      if (previous !== undefined && newest > previous && previous >= countFrom) {
        for (let t = previous; t < newest; t += 1) lags.lagMs.push(arrival - t);
      }
      previous = Math.max(previous ?? newest, newest);
    });
    if (!stop.aborted) lags.viewersLost++;
  } catch (err) {
    if (!stop.aborted) {
      lags.viewersLost++;
      console.error(err);
    }
  }
}

async function measure(mode: string, server: ClickHouseServer | null, ceiling: number): Promise<Record<string, string | number>> {
  const rate = values.rate ? Number(values.rate) : Math.round(ceiling / 2);
  const dataDir = mkdtempSync(join(tmpdir(), 'kb-bench-lag-'));
  const env: Record<string, string> = { ...(server ? { CLICKHOUSE_URL: server.url } : { KNEEBOARD_DATA_DIR: dataDir }), KNEEBOARD_LIVE_PER_CLIENT: String(viewers * 2) };
  const api = await startServerProcess(env, 60_000);
  const pool = new Pool(api.url, { connections: senders + 2 });
  const post = async (path: string, body: string | Uint8Array, contentType = 'application/json') => {
    const res = await pool.request({ method: 'POST', path, headers: { 'content-type': contentType }, body });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${text}`);
    return JSON.parse(text) as { id?: string };
  };
  try {
    const { id } = await post('/api/v1/runs', JSON.stringify({ service: 'bench', release: `lag-${mode}` }));
    const start = Date.now();
    await post(`/api/v1/runs/${id}/steps`, JSON.stringify({ level: 1, started_at: start - 1_000, measure_from: start - 1_000, ended_at: null }));

    const stop = new AbortController();
    const lags: Lags = { lagMs: [], snapshots: 0, viewersLost: 0 };
    const watching = Array.from({ length: viewers }, () => watch(api.url, id!, stop.signal, start + SETTLE_MS, lags));

    let cutAt = start;
    let events = 0;
    let batches = 0;
    const end = start + seconds * 1000;
    const cpu0 = cpuSeconds(api.child.pid!);
    const load0 = loadAverage();
    await Promise.all(
      Array.from({ length: senders }, async () => {
        while (Date.now() < end) {
          // Cut a batch of everything done since the last cut (at most a full batch), then wait a
          // little when less than 5 ms of requests are due, as an agent's flush timer would.
          const now = Date.now();
          const due = Math.min(MAX_BATCH_EVENTS, Math.floor(((now - cutAt) * rate) / 1000));
          if (due < rate / 200) {
            await new Promise((r) => setTimeout(r, 5));
            continue;
          }
          const from = cutAt;
          const to = from + (due * 1000) / rate;
          cutAt = to;
          const n = batches++;
          await post(`/api/v1/runs/${id}/events?batch_id=b${n}&agent_id=lag`, batchBody(from, to, due), ARROW_STREAM_CONTENT_TYPE);
          events += due;
        }
      }),
    );
    const elapsed = (Date.now() - start) / 1000;
    const apiCores = (cpuSeconds(api.child.pid!) - cpu0) / elapsed;
    // The last requests need one more snapshot to show.
    await new Promise((r) => setTimeout(r, 1_500));
    stop.abort();
    await Promise.all(watching);
    const behind = Date.now() - cutAt;
    return {
      mode,
      'engine ceiling events/s': Math.round(ceiling),
      'target events/s': rate,
      'events/s': Math.round(events / elapsed),
      viewers,
      'lag p50 ms': quantile(lags.lagMs, 0.5),
      'lag p95 ms': quantile(lags.lagMs, 0.95),
      'lag p99 ms': quantile(lags.lagMs, 0.99),
      'lag max ms': lags.lagMs.reduce((a, b) => Math.max(a, b), 0),
      snapshots: lags.snapshots,
      'viewers lost': lags.viewersLost,
      'senders behind at end ms': behind - 1_500,
      'API cores': apiCores,
      'load avg (before→after)': `${load0.toFixed(2)}→${loadAverage().toFixed(2)}`,
    };
  } finally {
    await pool.close();
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows: Array<Record<string, string | number>> = [];
const snapshots: Array<Record<string, string | number>> = [];
for (const mode of values.modes.split(',')) {
  if (mode === 'embedded') {
    snapshots.push(await snapshotCost());
    rows.push(await measure(mode, null, await engineCeiling(null)));
  }
  else {
    const server = await startClickHouseServer();
    try {
      rows.push(await measure(mode, server, await engineCeiling(server)));
    } finally {
      await server.stop();
    }
  }
}
if (snapshots.length > 0) report('live-snapshot-cost', snapshots, { seconds: ceilingSeconds, senders });
report('live-lag-at-rate', rows, { seconds, ceiling_seconds: ceilingSeconds, rate: values.rate ?? 'half the engine ceiling', senders, settle_ms: SETTLE_MS, target: { lag_p95_ms: 1000, viewers: 20 } });
