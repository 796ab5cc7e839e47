/**
 * Is the agent ever the ceiling? Each load generator on one core (core 0), nginx (one worker) on
 * the other (core 1): wrk -t1, oha, k6 and autocannon where installed, the kneeboard CLI on its
 * native engine (one thread) and on its Node engine, at c = 1, 50, 256 and 10,000 — req/s, p50, p99, the tool's CPU and peak RSS, and each
 * tool's ratio to wrk. Rounds interleave the tools (wrk, oha, native, node, wrk, …), and a ratio is
 * taken within a round, so other work on a shared machine hits every tool alike; medians of rounds
 * are reported. Then the latency each tool adds: p50 − S against the demo target with a known
 * service time S (no queueing: more slots than connections), pinned to core 1 in the same way.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/agent-throughput.bench.ts
 *   env: KB_BENCH_ROUNDS (3), KB_BENCH_SECONDS (5), KB_BENCH_LEVELS (1,50,256,10000)
 *
 * Needs nginx and wrk (Debian: apt-get install -y nginx wrk; tried here when missing); oha and k6
 * when installed (cargo install oha; go install go.k6.io/k6@latest — k6 up to 1,000 VUs), and
 * autocannon from this package; the native engine built (cargo build --release in apps/agent/engine).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadAverage } from './lib/process-cpu.ts';
import { autocannon, k6, kneeboard, oha, startNginx, which, wrk, type ToolResult } from './lib/load-tools.ts';
import { quantile, report } from './lib/report.ts';
import { AUTOCANNON_BIN, startDemoTarget, startSink } from './agent-bench-lib.ts';

const ROUNDS = Number(process.env.KB_BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.KB_BENCH_SECONDS ?? 5);
const LEVELS = (process.env.KB_BENCH_LEVELS ?? '1,50,256,10000').split(',').map(Number);
const LATENCY_LEVELS = [1, 50, 256];
const SERVICE_MS = 20;
const GENERATOR_CORE = 0;
const TARGET_CORE = 1;

if (!which('nginx') || !which('wrk')) {
  console.log('installing nginx and wrk from Debian…');
  spawnSync('bash', ['-c', 'apt-get install -y -qq nginx wrk >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq nginx wrk >/dev/null)'], { stdio: 'inherit' });
}
const ohaBin = which('oha');
if (!ohaBin) console.log('oha not installed (cargo install oha): its rows are left out');
const k6Bin = which('k6') ?? (existsSync(join(homedir(), 'go/bin/k6')) ? join(homedir(), 'go/bin/k6') : null);
if (!k6Bin) console.log('k6 not installed (go install go.k6.io/k6@latest): its rows are left out');
/** k6 runs a JavaScript VM per VU: 10,000 of them is gigabytes, not a load test of the target. */
const K6_MAX_VUS = 1_000;

type Tool = { name: string; run: (url: string, c: number) => Promise<ToolResult>; maxC?: number };
const sink = await startSink();
const autocannonBin = AUTOCANNON_BIN;
const tools: Tool[] = [
  { name: 'wrk -t1', run: (url, c) => wrk(GENERATOR_CORE, url, c, SECONDS) },
  ...(ohaBin ? [{ name: 'oha', run: (url: string, c: number) => oha(ohaBin, GENERATOR_CORE, url, c, SECONDS) }] : []),
  ...(k6Bin ? [{ name: 'k6', run: (url: string, c: number) => k6(k6Bin, GENERATOR_CORE, url, c, SECONDS), maxC: K6_MAX_VUS }] : []),
  ...(autocannonBin ? [{ name: 'autocannon', run: (url: string, c: number) => autocannon(autocannonBin, GENERATOR_CORE, url, c, SECONDS) }] : []),
  { name: 'kneeboard native', run: (url, c) => kneeboard('native', GENERATOR_CORE, url, c, SECONDS, sink.url) },
  { name: 'kneeboard node', run: (url, c) => kneeboard('node', GENERATOR_CORE, url, c, SECONDS, sink.url) },
];

interface Sample extends ToolResult {
  tool: string;
  c: number;
  round: number;
  load: number;
}

/** Every tool at every level, `rounds` times, interleaved; failures are recorded, not fatal. */
async function measure(url: string, levels: number[], rounds: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const c of levels) {
      for (const t of tools) {
        if (t.maxC !== undefined && c > t.maxC) continue;
        const load = loadAverage();
        try {
          const r = await t.run(url, c);
          samples.push({ ...r, tool: t.name, c, round, load });
          console.log(`round ${round + 1} c=${c} ${t.name}: ${Math.round(r.qps)} req/s, p50 ${r.p50.toFixed(3)} ms, cpu ${r.cpuCores.toFixed(2)}, ${Math.round(r.rssMiB)} MiB (load ${load})`);
        } catch (err) {
          console.log(`round ${round + 1} c=${c} ${t.name}: FAILED ${(err as Error).message.slice(0, 300)}`);
        }
      }
    }
  }
  return samples;
}

const median = (xs: number[]) => (xs.length === 0 ? Number.NaN : quantile(xs, 0.5));
/** Per round, the tool's figure over wrk's in the same round. */
function ratiosToWrk(samples: Sample[], tool: string, c: number, key: 'qps' | 'p50'): number[] {
  const ratios: number[] = [];
  for (const s of samples.filter((x) => x.tool === tool && x.c === c)) {
    const w = samples.find((x) => x.tool === 'wrk -t1' && x.c === c && x.round === s.round);
    if (w && w[key] > 0) ratios.push(s[key] / w[key]);
  }
  return ratios;
}
const ratioToWrk = (samples: Sample[], tool: string, c: number, key: 'qps' | 'p50'): number => median(ratiosToWrk(samples, tool, c, key));
const spread = (xs: number[]): string => (xs.length === 0 ? '—' : `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`);

const nginx = await startNginx(TARGET_CORE, 18_000 + Math.floor(Math.random() * 2_000));
let throughput: Sample[];
try {
  throughput = await measure(nginx.url, LEVELS, ROUNDS);
} finally {
  await nginx.stop();
}

const demo = await startDemoTarget(['--workers', '20000', '--service-ms', String(SERVICE_MS)]);
let latency: Sample[];
try {
  spawnSync('taskset', ['-a', '-p', '-c', String(TARGET_CORE), String(demo.pid)]);
  if (process.getuid?.() === 0) spawnSync('chrt', ['-a', '-r', '-p', '10', String(demo.pid)]);
  latency = await measure(`${demo.url}/`, LATENCY_LEVELS, Math.min(ROUNDS, 2));
} finally {
  await demo.stop();
  sink.server.close();
}

const rows: Array<Record<string, string | number>> = [];
for (const c of LEVELS) {
  for (const t of tools) {
    const xs = throughput.filter((s) => s.tool === t.name && s.c === c);
    if (xs.length === 0) continue;
    const qps = median(xs.map((s) => s.qps));
    const cpu = median(xs.map((s) => s.cpuCores));
    rows.push({
      c,
      tool: t.name,
      'req/s': Math.round(qps),
      '× wrk': Number(ratioToWrk(throughput, t.name, c, 'qps').toFixed(2)),
      '× wrk range': spread(ratiosToWrk(throughput, t.name, c, 'qps')),
      'p50 ms': Number(median(xs.map((s) => s.p50)).toFixed(3)),
      // Little's law: in a closed loop of c, the mean latency is c ÷ throughput whatever the shape.
      'mean ms (c÷req/s)': Number(((c / qps) * 1000).toFixed(3)),
      'p50 × wrk': Number(ratioToWrk(throughput, t.name, c, 'p50').toFixed(2)),
      'p99 ms': Number(median(xs.map((s) => s.p99)).toFixed(3)),
      'cpu cores': Number(cpu.toFixed(2)),
      'req/s per core': Math.round(qps / cpu),
      'peak RSS MiB': Math.round(Math.max(...xs.map((s) => s.rssMiB))),
      limited: xs.map((s) => (s.limited === undefined ? '—' : s.limited === 'no' ? 'no' : 'YES')).join('/'),
      load: spread(xs.map((s) => s.load)).replace(/\.\d+/g, ''),
    });
  }
}
const added = LATENCY_LEVELS.flatMap((c) =>
  tools.flatMap((t) => {
    const xs = latency.filter((s) => s.tool === t.name && s.c === c);
    if (xs.length === 0) return [];
    const p50 = median(xs.map((s) => s.p50));
    return [{ c, tool: t.name, 'p50 ms': Number(p50.toFixed(3)), 'added p50 ms (p50 − S)': Number((p50 - SERVICE_MS).toFixed(3)), 'p99 ms': Number(median(xs.map((s) => s.p99)).toFixed(3)), 'req/s': Math.round(median(xs.map((s) => s.qps))) }];
  }),
);

report('agent-throughput', rows, {
  setup: `nginx 1 worker on core ${TARGET_CORE}; each generator pinned to core ${GENERATOR_CORE}; ${SECONDS} s per run (kneeboard: 1 s warm-up + ${SECONDS} s measured); ${ROUNDS} interleaved rounds, medians; ratios taken within a round`,
  added_latency: { target: `demo target, 20,000 slots × ${SERVICE_MS} ms, on core ${TARGET_CORE}`, rows: added },
  samples: throughput,
  latency_samples: latency,
});
console.log(`\nadded latency against the demo target (S = ${SERVICE_MS} ms, no queueing):`);
for (const a of added) console.log(`  c=${a.c} ${a.tool}: p50 ${a['p50 ms']} ms → adds ${a['added p50 ms (p50 − S)']} ms`);
