/**
 * How fast `kneeboard import` reads each tool's output and stores it: requests per second for a
 * large generated file of each tool's line format, parsing alone and end to end into the real API
 * (embedded ClickHouse, its own process), beside what `wc -l` (the floor of reading lines) and
 * `jq` (a JSON-lines reader) do with the same file. k6 twice: its full output (13 lines, ~3 KB per
 * request) and only the lines the import reads. Run from the repository root, one bench at a time:
 *   flock /tmp/kb-bench.lock npx tsx bench/import.bench.ts [--requests 1000000] [--only k6]
 * Prints a table and writes bench/results/import.json.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { newParsed, readByteLines, runImport, toolSpec } from '@kneeboard/agent';
import { startServerProcess } from '@kneeboard/api/testing';
import { generate, LEVELS, type BenchFormat } from './import-files.ts';
import { report } from './lib/report.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1]!;
};
const REQUESTS = Number(arg('requests', '1000000'));
const ONLY = arg('only', '');

const CASES: Array<{ format: BenchFormat; tool: string; jq?: string }> = [
  { format: 'k6 full', tool: 'k6', jq: 'select(.metric == "http_req_duration") | .data.value' },
  { format: 'k6 lean', tool: 'k6', jq: 'select(.metric == "http_req_duration") | .data.value' },
  { format: 'vegeta csv', tool: 'vegeta' },
  { format: 'vegeta json', tool: 'vegeta', jq: '.latency' },
  { format: 'jmeter csv', tool: 'jmeter' },
  { format: 'gatling', tool: 'gatling' },
];

/** Wall time and this process's CPU time: on a shared box the CPU time says what one core does. */
async function parseOnly(path: string, tool: string): Promise<{ seconds: number; cpuSeconds: number; events: number }> {
  const format = toolSpec(tool, { latencyMetric: 'http_req_duration' }).format;
  if (format.kind !== 'lines') throw new Error('line formats only');
  const parse = format.open();
  const p = newParsed();
  let events = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await readByteLines(createReadStream(path, { highWaterMark: 1 << 20 }), {
    line: (buf, start, end) => {
      if (parse(buf, start, end, p) === 'event') events += 1;
    },
    unterminated: () => undefined,
  });
  const cpu = process.cpuUsage(cpu0);
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, events };
}

/** Seconds a command takes over the file (its output discarded). */
function timed(cmd: string, args: string[]): number {
  const t0 = performance.now();
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 1 << 30 });
  return (performance.now() - t0) / 1000;
}

const dir = mkdtempSync(join(tmpdir(), 'kb-import-bench-'));
const api = await startServerProcess({ KNEEBOARD_DATA_DIR: join(dir, 'data') }, 120_000);
const rows: Array<Record<string, string | number>> = [];
const load: number[] = [];
let peakRss = 0;
const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
try {
  for (const c of CASES.filter((x) => ONLY === '' || x.format.startsWith(ONLY))) {
    const file = join(dir, `${c.format.replace(' ', '-')}.out`);
    await generate(file, c.format, REQUESTS);
    const mb = statSync(file).size / 2 ** 20;
    load.push(loadavg()[0]!);
    const wc = timed('wc', ['-l', file]);
    const jq = c.jq === undefined ? undefined : timed('jq', ['-c', c.jq, file]);
    const parsed = await parseOnly(file, c.tool);
    peakRss = 0;
    const t0 = performance.now();
    const levels = c.tool === 'vegeta' ? { levels: [100] } : {};
    const r = await runImport(toolSpec(c.tool, { latencyMetric: 'http_req_duration' }), { files: [file], ...levels, api: api.url, run: { service: 'bench-import', release: `${c.format} ${Date.now()}` } });
    const seconds = (performance.now() - t0) / 1000;
    if (r.upload.uploaded !== REQUESTS || parsed.events !== REQUESTS) throw new Error(`${c.format}: stored ${r.upload.uploaded}, parsed ${parsed.events} of ${REQUESTS}`);
    rows.push({
      format: c.format,
      MiB: Math.round(mb),
      'import req/s': Math.round(REQUESTS / seconds),
      'parse req/s': Math.round(parsed.events / parsed.seconds),
      'parse req/CPU-s': Math.round(parsed.events / parsed.cpuSeconds),
      'parse MiB/s': Math.round(mb / parsed.seconds),
      'wc -l MiB/s': Math.round(mb / wc),
      'jq req/s': jq === undefined ? '–' : Math.round(REQUESTS / jq),
      'parse ÷ wc -l': Number((wc / parsed.seconds).toFixed(2)),
      levels: c.tool === 'vegeta' ? '100 (--level)' : r.levels.map((l) => l.level).join(','),
      'peak RSS MiB': Math.round(peakRss / 2 ** 20),
      'load 1m': Number(loadavg()[0]!.toFixed(1)),
    });
    rmSync(file);
  }
} finally {
  clearInterval(rssTimer);
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
}
report('import', rows, {
  requests_per_file: REQUESTS,
  expected_levels: LEVELS,
  load_average_1m_at_start: load.map((l) => Number(l.toFixed(1))),
  note: 'import = hash + schedule pass, then parse into column batches of 50,000, Arrow, 4 posts in flight, to the API on embedded ClickHouse (same box), until stored; parse = the second pass alone; wc -l = reading the same file as lines',
});
