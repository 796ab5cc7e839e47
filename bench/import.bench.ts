/**
 * How fast `kneeboard import k6` reads k6's `--out json` and stores it: requests per second for a
 * large generated file, parsing alone and end to end into the real API (embedded ClickHouse).
 * Two files: k6's full output (13 lines, ~3 KB per request: every metric k6 writes) and the same
 * requests with only the lines the import reads (`grep -E '"metric":"(http_req_duration|vus)"'`).
 * Run from the repository root, one bench at a time:
 *   flock /tmp/kb-bench.lock npx tsx bench/import.bench.ts [--requests 300000]
 * Prints a table and writes bench/results/import.json.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { k6Parser, newParsed, readLines, runImport, toolSpec } from '@kneeboard/agent';
import { startServerProcess } from '@kneeboard/api/spawn';
import { report } from './lib/report.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const REQUESTS = arg('requests', 300_000);
const LEVELS = [8, 16, 32, 64];

const TAGS = '{"expected_response":"true","group":"","method":"GET","name":"http://127.0.0.1:8080/","proto":"HTTP/1.1","scenario":"ramp","status":"200","url":"http://127.0.0.1:8080/"}';
const SHORT_TAGS = '{"group":"","scenario":"ramp"}';
const OTHER_HTTP = ['http_reqs', 'http_req_blocked', 'http_req_connecting', 'http_req_tls_handshaking', 'http_req_sending', 'http_req_waiting', 'http_req_receiving', 'http_req_failed'];
const OTHER_ITERATION = ['data_sent', 'data_received', 'iteration_duration', 'iterations'];
const point = (metric: string, time: string, value: number, tags: string) => `{"metric":"${metric}","type":"Point","data":{"time":"${time}","value":${value},"tags":${tags}}}\n`;

/** A k6 ramp of REQUESTS requests over four levels, in k6's own line layout, a vus sample every second. */
async function generate(path: string, full: boolean): Promise<void> {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  const start = Date.UTC(2026, 10, 1, 12, 0, 0);
  const perLevel = REQUESTS / LEVELS.length;
  let buf = '';
  let nextVus = start;
  for (let i = 0; i < REQUESTS; i++) {
    const level = LEVELS[Math.min(LEVELS.length - 1, Math.floor(i / perLevel))]!;
    // 20k requests/s: a level's share spans perLevel / 20k seconds.
    const t = start + i / 20;
    while (nextVus <= t) {
      buf += point('vus', new Date(nextVus).toISOString(), level, '{}');
      nextVus += 1000;
    }
    const iso = `${new Date(Math.floor(t)).toISOString().slice(0, 23)}${String(i % 1000).padStart(6, '0')}Z`;
    const latency = 1 + ((i * 7919) % 5000) / 100;
    if (full) buf += point('http_reqs', iso, 1, TAGS);
    buf += point('http_req_duration', iso, latency, TAGS);
    if (full) {
      for (const m of OTHER_HTTP.slice(1)) buf += point(m, iso, latency / 7, TAGS);
      for (const m of OTHER_ITERATION) buf += point(m, iso, 100, SHORT_TAGS);
    }
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

/** Wall time, and this process's CPU time: on a shared box the CPU time says what one core does. */
async function parseOnly(path: string): Promise<{ seconds: number; cpuSeconds: number; events: number }> {
  const parse = k6Parser();
  const p = newParsed();
  let events = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await readLines(path, {
    line: (text) => {
      if (parse(text, p) === 'event') events += 1;
    },
    unterminated: () => undefined,
  });
  const cpu = process.cpuUsage(cpu0);
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, events };
}

const dir = mkdtempSync(join(tmpdir(), 'kb-import-bench-'));
const api = await startServerProcess({ KNEEBOARD_DATA_DIR: join(dir, 'data') }, 120_000);
const rows: Array<Record<string, string | number>> = [];
let peakRss = 0;
const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
try {
  for (const full of [true, false]) {
    const file = join(dir, full ? 'k6-full.json' : 'k6-requests-only.json');
    await generate(file, full);
    const mb = statSync(file).size / 2 ** 20;
    const parsed = await parseOnly(file);
    peakRss = 0;
    const t0 = performance.now();
    const r = await runImport(toolSpec('k6', { latencyMetric: 'http_req_duration' }), { files: [file], api: api.url, run: { service: 'bench-import', release: full ? 'full' : 'lean' } });
    const seconds = (performance.now() - t0) / 1000;
    if (r.upload.uploaded !== REQUESTS || parsed.events !== REQUESTS) throw new Error(`stored ${r.upload.uploaded}, parsed ${parsed.events} of ${REQUESTS}`);
    rows.push({
      file: full ? 'k6 full output' : 'requests + vus lines only',
      requests: REQUESTS,
      MiB: Math.round(mb),
      'parse req/s': Math.round(parsed.events / parsed.seconds),
      'parse MiB/s': Math.round(mb / parsed.seconds),
      'parse req/CPU-s': Math.round(parsed.events / parsed.cpuSeconds),
      'import req/s': Math.round(REQUESTS / seconds),
      'import s': Number(seconds.toFixed(1)),
      levels: r.levels.map((l) => l.level).join(','),
      'peak RSS MiB': Math.round(peakRss / 2 ** 20),
    });
    rmSync(file);
  }
} finally {
  clearInterval(rssTimer);
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
}
report('import', rows, {
  load_average_1m: Number(loadavg()[0]!.toFixed(1)), note: 'import = hash + schedule pass, then parse + Arrow batches of 50,000 + upload to the API on embedded ClickHouse, until stored; parse = the second pass alone' });
