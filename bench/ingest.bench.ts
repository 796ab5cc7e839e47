/**
 * Ingest throughput through the real API, JSON and Arrow, on the embedded engine and on a
 * ClickHouse server, with the engine's own rate for the same Arrow batches (inserted straight into
 * the engine, no API) side by side as the ceiling, in the same run.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/ingest.bench.ts [--events 2000000] [--batch 20000] [--senders 4]
 *        [--modes embedded,server] [--formats json,arrow] [--profile DIR] [--names N] [--name-wire dictionary|utf8]
 *
 * --names N gives every event one of N request names (round robin), to compare ingest with names
 * against without; its results go to results/ingest-names-N.json, beside ingest.json (--report
 * NAME: results/NAME.json instead).
 *
 * --profile writes a V8 CPU profile of each API process into DIR (open it in Chrome DevTools).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { insertEventBatch, insertEventGroup, migrate, openDb, RAW_EVENTS, writeLedger } from '@kneeboard/clickhouse';
import { startServerProcess } from '@kneeboard/api/testing';
import { startClickHouseServer, type ClickHouseServer } from '@kneeboard/clickhouse-server';
import { ARROW_STREAM_CONTENT_TYPE } from '@kneeboard/contracts';
import { allocateColumns, columnsToArrays, encodeArrowColumns, type EventColumns } from '@kneeboard/event-wire';
import { encodeArrowColumnsUtf8Names } from '@kneeboard/event-wire/testing';
import { Pool } from 'undici';
import { cpuSeconds, loadAverage, pidByCommandLine } from './lib/process-cpu.ts';
import { quantile, report } from './lib/report.ts';
import { insertCpuByTable } from './lib/server-statement-cpu.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '2000000' },
    batch: { type: 'string', default: '20000' },
    senders: { type: 'string', default: '4' },
    modes: { type: 'string', default: 'embedded,server' },
    formats: { type: 'string', default: 'json,arrow' },
    profile: { type: 'string' },
    names: { type: 'string', default: '0' },
    /** How Arrow batches carry their names: 'dictionary' (what the SDK sends) or 'utf8' (pyarrow's plain strings, the SDK before). */
    'name-wire': { type: 'string', default: 'dictionary' },
    /** Where the results go (results/NAME.json), e.g. a short comparison run that must not replace ingest.json. */
    report: { type: 'string' },
  },
});
const namesPerRun = Number(values.names);
if (values['name-wire'] !== 'dictionary' && values['name-wire'] !== 'utf8') throw new Error('--name-wire: dictionary or utf8');
/** The Arrow stream of a batch, its names in the wire form asked for. */
const arrowOf = values['name-wire'] === 'utf8' ? encodeArrowColumnsUtf8Names : encodeArrowColumns;
const NAMES = Array.from({ length: namesPerRun }, (_, i) => `GET /api/endpoint-${i}/{id}`);
const batchSize = Number(values.batch);
const senders = Number(values.senders);
const batches = Math.ceil(Number(values.events) / batchSize);
const T0 = Date.now() - 3_600_000;
const SPACING_MS = 0.05;

/** Plausible timings, seeded by the batch number, nulls where a server sent no Server-Timing. */
function columnsOf(b: number): EventColumns {
  const c = allocateColumns(batchSize);
  for (let i = 0; i < batchSize; i++) {
    const k = b * batchSize + i;
    c.level[i] = 1 + (b % 10);
    c.ts_ms[i] = T0 + k * SPACING_MS;
    // Never below compute_ms (4–6 ms): the API refuses a Server-Timing time larger than the latency.
    c.latency_ms[i] = 7 + ((k * 7919) % 1000) / 37;
    c.compute_ms[i] = k % 50 === 0 ? Number.NaN : 4 + ((k * 104729) % 100) / 50;
    c.queue_ms[i] = k % 50 === 0 ? Number.NaN : ((k * 31) % 17) / 3;
    c.status[i] = k % 500 === 0 ? 503 : 200;
  }
  if (namesPerRun === 0) return c;
  const index = new Uint32Array(batchSize);
  for (let i = 0; i < batchSize; i++) index[i] = (b * batchSize + i) % namesPerRun;
  return { ...c, name: { values: NAMES, index } };
}

function jsonBody(batchId: string, c: EventColumns): string {
  return JSON.stringify({ batch_id: batchId, agent_id: 'bench', ...columnsToArrays(c) });
}

interface Case {
  mode: string;
  format: string;
  events: number;
  seconds: number;
  batchMs: number[];
  cpu: { api: number; clickhouse: number };
  load: [number, number];
  /** Server mode: the server's CPU per batch for the event inserts and for the batch ledger's (system.query_log). */
  insertCpuMs?: { events: number; ledger: number; ledgerInserts: number };
}

/**
 * Data directories are removed when the bench ends, not between cases: deleting one (tens of
 * thousands of part files) made the next case 20–40% slower. perf showed why: on this box's ext4,
 * creating a file after a mass delete scans inodes deleted in the last minutes
 * (find_inode_bit → recently_deleted, 19.5% of the engine's CPU), and every insert creates parts.
 */
const leftovers: string[] = [];
const removeAtExit = (dir: string) => void leftovers.push(dir);

/** Sends every body with `senders` concurrent loops over one connection each; resolves with per-batch times. */
async function drive(send: (i: number) => Promise<void>): Promise<{ seconds: number; batchMs: number[] }> {
  const batchMs: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (next < batches) {
        const i = next++;
        const t = performance.now();
        await send(i);
        batchMs.push(performance.now() - t);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, batchMs };
}

async function throughApi(mode: string, server: ClickHouseServer | null, formats: string[], columns: EventColumns[]): Promise<Case[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kb-bench-ingest-'));
  const env: Record<string, string> = server ? { CLICKHOUSE_URL: server.url } : { KNEEBOARD_DATA_DIR: dataDir };
  const profile = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}/${mode}`] : [];
  const api = await startServerProcess(env, 30_000, undefined, profile);
  const pool = new Pool(api.url, { connections: senders, pipelining: 1 });
  const cases: Case[] = [];
  try {
    for (const format of formats) {
      const created = await pool.request({ method: 'POST', path: '/api/v1/runs', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ service: 'bench', release: `${mode}-${format}` }) });
      const { id } = (await created.body.json()) as { id: string };
      for (let l = 1; l <= 10; l++) {
        const step = { level: l, started_at: T0, measure_from: T0, ended_at: T0 + batches * batchSize * SPACING_MS };
        await (await pool.request({ method: 'POST', path: `/api/v1/runs/${id}/steps`, headers: { 'content-type': 'application/json' }, body: JSON.stringify(step) })).body.dump();
      }
      const bodies = columns.map((c, i) => (format === 'json' ? jsonBody(`b${i}`, c) : arrowOf(c)));
      const path = (i: number) => (format === 'json' ? `/api/v1/runs/${id}/events` : `/api/v1/runs/${id}/events?batch_id=b${i}&agent_id=bench`);
      const contentType = format === 'json' ? 'application/json' : ARROW_STREAM_CONTENT_TYPE;
      const cpu0 = { api: cpuSeconds(api.child.pid!), clickhouse: server ? cpuSecondsOfServer(server) : 0 };
      const load0 = loadAverage();
      const from = new Date();
      const { seconds, batchMs } = await drive(async (i) => {
        const res = await pool.request({ method: 'POST', path: path(i), headers: { 'content-type': contentType }, body: bodies[i]! });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`batch ${i}: ${res.statusCode} ${text}`);
      });
      const cpu = { api: cpuSeconds(api.child.pid!) - cpu0.api, clickhouse: server ? cpuSecondsOfServer(server) - cpu0.clickhouse : 0 };
      const detail = await (await pool.request({ method: 'GET', path: `/api/v1/runs/${id}` })).body.json();
      const stored = (detail as { curve: Array<{ requests: number }> }).curve.reduce((s, p) => s + p.requests, 0);
      if (stored !== batches * batchSize) throw new Error(`${mode}/${format}: the curve counts ${stored} requests, ${batches * batchSize} were sent`);
      const insertCpuMs = server ? await insertCpuPerBatch(server, from, new Date()) : undefined;
      cases.push({ mode, format, events: stored, seconds, batchMs, cpu, load: [load0, loadAverage()], insertCpuMs });
    }
  } finally {
    await pool.close();
    await api.stop();
    removeAtExit(dataDir);
  }
  return cases;
}

async function insertCpuPerBatch(server: ClickHouseServer, from: Date, to: Date): Promise<Case['insertCpuMs']> {
  const byTable = await insertCpuByTable(server.url, from, to);
  const events = byTable.get(RAW_EVENTS);
  const ledger = byTable.get('kb_batches_v1');
  return {
    events: ((events?.cpuSeconds ?? 0) * 1000) / batches,
    ledger: ((ledger?.cpuSeconds ?? 0) * 1000) / batches,
    ledgerInserts: ledger?.statements ?? 0,
  };
}

/** The server's process (python3 hosting libchdb) is found by its data directory; its CPU is read through /proc. */
function cpuSecondsOfServer(server: ClickHouseServer): number {
  const pid = pidByCommandLine(server.dataDir);
  return pid === undefined ? 0 : cpuSeconds(pid);
}

/**
 * The same Arrow batches through the storage package's own insert into the server's migrated
 * tables (materialized views and all), no API: the ceiling the API is measured against. (Into a
 * bare copy of the table it would skip the rollup views and flatter the engine threefold.)
 */
async function directToServer(server: ClickHouseServer, columns: EventColumns[]): Promise<Case> {
  const db = openDb({ mode: 'server', url: server.url, username: 'default', password: '', database: 'default' });
  try {
    await migrate(db);
    const bodies = columns.map((c) => arrowOf(c));
    const runId = '00000000-0000-4000-8000-000000000000';
    const load0 = loadAverage();
    const cpu0 = cpuSecondsOfServer(server);
    const from = new Date();
    const { seconds, batchMs } = await drive((i) => insertEventBatch(db, { runId, batchId: `direct-${i}`, agentId: 'bench', arrow: bodies[i]! }));
    const cpu = { api: 0, clickhouse: cpuSecondsOfServer(server) - cpu0 };
    const insertCpuMs = await insertCpuPerBatch(server, from, new Date());
    return { mode: 'server', format: 'arrow, no API (engine ceiling)', events: batches * batchSize, seconds, batchMs, cpu, load: [load0, loadAverage()], insertCpuMs };
  } finally {
    await db.close();
  }
}

/**
 * The same Arrow batches through the storage package's own writes into an embedded engine in this
 * process, no API: the embedded ceiling. As the API's group commit does at best: `senders` batches
 * per insert, their ledger rows first, one insert at a time. (The API runs in its own process, so
 * this one may open chDB.)
 */
async function directToEmbedded(columns: EventColumns[]): Promise<Case> {
  const dir = mkdtempSync(join(tmpdir(), 'kb-bench-direct-'));
  const db = openDb({ mode: 'embedded', path: dir });
  try {
    await migrate(db);
    const bodies = columns.map((c) => arrowOf(c));
    const runId = '00000000-0000-4000-8000-000000000000';
    const load0 = loadAverage();
    const cpu0 = cpuSeconds(process.pid);
    const batchMs: number[] = [];
    const started = performance.now();
    for (let first = 0; first < batches; first += senders) {
      const t = performance.now();
      const group = bodies.slice(first, first + senders).map((arrow, k) => ({ runId, batchId: `direct-${first + k}`, agentId: 'bench', arrow }));
      const token = `group-${first}`;
      await writeLedger(db, group.map((g) => ({ run_id: runId, batch_id: g.batchId, agent_id: 'bench', events: batchSize, content_hash: '', received_at: Date.now(), group_token: token })));
      await insertEventGroup(db, token, group);
      for (const _ of group) batchMs.push(performance.now() - t);
    }
    const seconds = (performance.now() - started) / 1000;
    return { mode: 'embedded', format: 'arrow, no API (engine ceiling)', events: batches * batchSize, seconds, batchMs, cpu: { api: 0, clickhouse: cpuSeconds(process.pid) - cpu0 }, load: [load0, loadAverage()] };
  } finally {
    await db.close();
    removeAtExit(dir);
  }
}

const columns = Array.from({ length: batches }, (_, i) => columnsOf(i));
const formats = values.formats.split(',');
const cases: Case[] = [];
for (const mode of values.modes.split(',')) {
  if (mode === 'embedded') {
    cases.push(...(await throughApi('embedded', null, formats, columns)));
    cases.push(await directToEmbedded(columns));
  }
  else {
    const server = await startClickHouseServer({ queryLog: true, dataDir: mkdtempSync(join(tmpdir(), 'kb-bench-server-')) });
    removeAtExit(server.dataDir);
    try {
      cases.push(...(await throughApi('server', server, formats, columns)));
      cases.push(await directToServer(server, columns));
    } finally {
      await server.stop();
    }
  }
}

report(
  values.report ?? (namesPerRun === 0 ? 'ingest' : `ingest-names-${namesPerRun}`),
  cases.map((c) => ({
    mode: c.mode,
    format: c.format,
    'events/s': Math.round(c.events / c.seconds),
    'batch p50 ms': quantile(c.batchMs, 0.5),
    'batch p99 ms': quantile(c.batchMs, 0.99),
    'API cores': c.cpu.api / c.seconds,
    'ClickHouse cores': c.cpu.clickhouse / c.seconds,
    // Where the server's time goes per 20,000-event batch: the event insert (with its rollup view) and the ledger.
    'server CPU ms/batch: events': c.insertCpuMs ? c.insertCpuMs.events : '',
    'ledger (inserts)': c.insertCpuMs ? `${c.insertCpuMs.ledger.toFixed(2)} (${c.insertCpuMs.ledgerInserts})` : '',
    'load avg (before→after)': `${c.load[0].toFixed(2)}→${c.load[1].toFixed(2)}`,
  })),
  { events_per_case: batches * batchSize, batch_size: batchSize, senders, names_per_run: namesPerRun, name_wire: values['name-wire'], targets: { json_events_per_s: 500_000, arrow_events_per_s: 1_000_000 } },
);

for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
