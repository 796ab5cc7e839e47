/**
 * Issue 9's live target: how long from a request being done to it being on the chart, while the API
 * ingests at about a million events a second and 20 viewers watch the run live.
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
 *        [--seconds 30] [--rate 1000000] [--viewers 20] [--senders 4] [--modes embedded,server]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServerProcess } from '@kneeboard/api/testing';
import { startClickHouseServer, type ClickHouseServer } from '@kneeboard/clickhouse-server';
import { ARROW_STREAM_CONTENT_TYPE, MAX_BATCH_EVENTS } from '@kneeboard/contracts';
import { allocateColumns, encodeArrowColumns } from '@kneeboard/event-wire';
import { Pool } from 'undici';
import { newestShown, readLiveSnapshots } from './lib/live-snapshots.ts';
import { cpuSeconds, loadAverage } from './lib/process-cpu.ts';
import { quantile, report } from './lib/report.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    rate: { type: 'string', default: '1000000' },
    viewers: { type: 'string', default: '20' },
    senders: { type: 'string', default: '4' },
    modes: { type: 'string', default: 'embedded' },
  },
});
const seconds = Number(values.seconds);
const rate = Number(values.rate);
const viewers = Number(values.viewers);
const senders = Number(values.senders);
/** The first seconds fill the caches and the rollup; lag is counted after them. */
const SETTLE_MS = 3_000;

/** `count` requests done evenly over (from, to], wall-clock stamps, 1–9 ms latencies. */
function batchBody(from: number, to: number, count: number): Uint8Array {
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
  return encodeArrowColumns(c);
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

async function measure(mode: string, server: ClickHouseServer | null): Promise<Record<string, string | number>> {
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
for (const mode of values.modes.split(',')) {
  if (mode === 'embedded') rows.push(await measure(mode, null));
  else {
    const server = await startClickHouseServer();
    try {
      rows.push(await measure(mode, server));
    } finally {
      await server.stop();
    }
  }
}
report('live-lag-at-rate', rows, { seconds, target_rate: rate, senders, settle_ms: SETTLE_MS, target: { lag_p95_ms: 1000, events_per_s: 1_000_000, viewers: 20 } });
