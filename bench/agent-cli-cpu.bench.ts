/**
 * What the kneeboard CLI's own process costs per request when the native engine sends the load:
 * nginx (one worker) on core 1, the CLI and its engine (one thread) on core 0, c = 50 closed loop,
 * real-time priority (lib/load-tools.ts PRIORITY). The CLI's CPU is read from /proc for every
 * thread of its process (the main thread, V8's compiler and GC threads, libuv's pool), not the
 * engine's, over a window inside the step; ÷ the requests in that window it is the CLI's CPU per
 * event: the work that shares the engine's core. (`node --cpu-prof` counts I/O callbacks as idle
 * — they run inside libuv's poll — and saw a fifth of it.)
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/agent-cli-cpu.bench.ts
 *   env: KB_BENCH_ROUNDS (3), KB_BENCH_SECONDS (5), KB_BENCH_C (50), KB_BENCH_HTTP2 (1: nginx with
 *   TLS + h2 and `--insecure --http2`, the agent-h2 bench's setup), KB_BENCH_OTHER_CLI (another
 *   CLI entry, e.g. a bundle of an older commit built with `node apps/agent/scripts/bundle-cli.mjs
 *   dist/before`: a second row, rotated in the same rounds), KB_BENCH_OTHER_ENGINE (another engine
 *   binary through this CLI, `--engine-binary` — e.g. a wrapper adding `--batch-events 1024`: a
 *   third row)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KNEEBOARD, startSink, type KneeboardLevel } from './agent-bench-lib.ts';
import { PRIORITY, startNginx } from './lib/load-tools.ts';
import { quantile, report } from './lib/report.ts';
import { runRounds } from './lib/rounds.ts';

const ROUNDS = Number(process.env.KB_BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.KB_BENCH_SECONDS ?? 5);
const C = Number(process.env.KB_BENCH_C ?? 50);
const HTTP2 = process.env.KB_BENCH_HTTP2 === '1';
const OTHER_CLI = process.env.KB_BENCH_OTHER_CLI;
const OTHER_ENGINE = process.env.KB_BENCH_OTHER_ENGINE;
const WARMUP_S = 1;
/** The window opens this long after the engine starts (its warm-up, and the CLI's first JIT burst half a second into it)… */
const WINDOW_FROM_S = WARMUP_S + 0.5;
/** …and closes this long before the step's end (the CLI's last upload and the table are outside). */
const WINDOW_TO_S = WARMUP_S + SECONDS - 0.5;
const TICKS_PER_S = 100;

/** CPU ms of every thread of a process, by thread id (utime + stime). */
function threadCpuMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_S);
  }
  return out;
}

function engineChild(pid: number): number | undefined {
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(' ').filter(Boolean)) {
      if (readFileSync(`/proc/${c}/comm`, 'utf8').startsWith('kneeboard-eng')) return Number(c);
    }
  }
  return undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface CliCpu {
  qps: number;
  p50: number;
  cliMs: number;
  mainMs: number;
  windowS: number;
  nsPerEvent: number;
  cliShare: number;
  engineShare: number;
}

/** One step of `cli` pinned to core 0 (exec'd, so the spawned pid is node's); its CPU over the window. */
async function measure(cli: string, url: string, api: string, extra: string[] = []): Promise<CliCpu> {
  const spool = mkdtempSync(join(tmpdir(), 'kb-cli-cpu-'));
  const args = [cli, 'sweep', '--target', url, '-c', String(C), '-d', `${SECONDS}s`, '--warmup', `${WARMUP_S}s`, '--engine', 'native', '--threads', '1'];
  if (HTTP2) args.push('--insecure', '--http2');
  args.push(...extra);
  args.push('--service', 'bench', '--release', 'cli-cpu', '--api', api, '--spool-dir', spool, '--json');
  const child = spawn('bash', ['-c', `exec ${PRIORITY} taskset -c 0 "$0" "$@"`, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let engine: number | undefined;
  for (let i = 0; i < 600 && engine === undefined && child.exitCode === null; i++) {
    await sleep(10);
    engine = engineChild(child.pid!);
  }
  if (engine === undefined) throw new Error(`the engine never started: ${stderr.slice(-300)}`);
  await sleep(WINDOW_FROM_S * 1000);
  const cli0 = threadCpuMs(child.pid!);
  const engine0 = [...threadCpuMs(engine).values()].reduce((a, b) => a + b, 0);
  const t0 = performance.now();
  await sleep((WINDOW_TO_S - WINDOW_FROM_S) * 1000);
  const cli1 = threadCpuMs(child.pid!);
  const engine1 = [...threadCpuMs(engine).values()].reduce((a, b) => a + b, 0);
  const windowS = (performance.now() - t0) / 1000;
  const code = await exited;
  if (code !== 0) throw new Error(`kneeboard exited ${code}: ${stderr.slice(-300)}`);
  const level = (JSON.parse(stdout) as { levels: KneeboardLevel[] }).levels[0]!;
  let cliMs = 0;
  for (const [tid, ms] of cli1) cliMs += ms - (cli0.get(tid) ?? 0);
  const mainMs = cli1.get(String(child.pid))! - (cli0.get(String(child.pid)) ?? 0);
  return {
    qps: level.qps,
    p50: level.p50_ms ?? Number.NaN,
    cliMs,
    mainMs,
    windowS,
    nsPerEvent: (cliMs * 1e6) / (level.qps * windowS),
    cliShare: cliMs / 1000 / windowS,
    engineShare: (engine1 - engine0) / 1000 / windowS,
  };
}

const sink = await startSink();
const nginx = await startNginx(1, 20_000 + Math.floor(Math.random() * 2_000), HTTP2 ? { tls: true, http2: true } : {});
const tools = [
  { name: 'this CLI', run: () => measure(KNEEBOARD, nginx.url, sink.url) },
  ...(OTHER_CLI ? [{ name: 'other CLI', run: () => measure(OTHER_CLI, nginx.url, sink.url) }] : []),
  ...(OTHER_ENGINE ? [{ name: 'this CLI, other engine', run: () => measure(KNEEBOARD, nginx.url, sink.url, ['--engine-binary', OTHER_ENGINE]) }] : []),
];
let samples: Awaited<ReturnType<typeof runRounds<CliCpu>>> = [];
try {
  samples = await runRounds(tools, ROUNDS, (r) => `${Math.round(r.qps)} req/s, CLI ${Math.round(r.nsPerEvent)} ns/event (${(r.cliShare * 100).toFixed(1)} % of the core, main thread ${Math.round(r.mainMs)} of ${Math.round(r.cliMs)} ms), engine ${(r.engineShare * 100).toFixed(1)} %`);
} finally {
  await nginx.stop();
  sink.server.close();
}
const rows = samples.map((s) => ({
  cli: s.tool,
  round: s.round + 1,
  'req/s': Math.round(s.qps),
  'p50 ms': Number(s.p50.toFixed(3)),
  'CLI ns/event': Math.round(s.nsPerEvent),
  'CLI % of core': Number((s.cliShare * 100).toFixed(1)),
  'main thread ms': Math.round(s.mainMs),
  'all threads ms': Math.round(s.cliMs),
  'engine % of core': Number((s.engineShare * 100).toFixed(1)),
  load: s.load,
}));
report('agent-cli-cpu', rows, {
  setup: `nginx 1 worker${HTTP2 ? ', TLS + h2' : ''} on core 1; kneeboard CLI + native engine (1 thread${HTTP2 ? ', --http2: 1 connection' : ''}) on core 0; c = ${C}, ${WARMUP_S} s warm-up + ${SECONDS} s; CLI CPU from /proc (all its threads) over [${WINDOW_FROM_S}, ${WINDOW_TO_S}] s after the engine started; ${ROUNDS} rotated rounds${OTHER_CLI ? `; other CLI: ${OTHER_CLI}` : ''}${OTHER_ENGINE ? `; other engine: ${OTHER_ENGINE}` : ''}`,
  median_ns_per_event: Object.fromEntries(tools.map((t) => [t.name, quantile(samples.filter((s) => s.tool === t.name).map((s) => s.nsPerEvent), 0.5)])),
});
