/**
 * What the kneeboard CLI's own thread costs per request when the native engine sends the load:
 * nginx (one worker) on core 1, the CLI and its engine (one thread) on core 0, c = 50 closed loop.
 * The CLI runs under `node --cpu-prof`; its profile's non-idle time ÷ the requests of the step is
 * the CLI's CPU per event, and its top self-time functions show where it goes. This is the work
 * that shares the engine's core (issue 10: "the CLI does no per-event work on the hot path").
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/agent-cli-cpu.bench.ts
 *   env: KB_BENCH_ROUNDS (3), KB_BENCH_SECONDS (5), KB_BENCH_C (50)
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KNEEBOARD, startSink, type KneeboardLevel } from './agent-bench-lib.ts';
import { loadAverage } from './lib/process-cpu.ts';
import { runPinned, startNginx } from './lib/load-tools.ts';
import { quantile, report } from './lib/report.ts';

const ROUNDS = Number(process.env.KB_BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.KB_BENCH_SECONDS ?? 5);
const C = Number(process.env.KB_BENCH_C ?? 50);
const WARMUP_S = 1;

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The CLI's busy time inside the step's measurement window, and self time per function there.
 * The window is found from the profile alone: it opens the warm-up after the engine is spawned
 * (the first sample in ChildProcess.spawn or in the native step) and lasts the step's duration, so
 * start-up and the final upload are outside. "(idle)" is the thread waiting in epoll: not counted.
 */
function stepWindow(p: CpuProfile, warmupS: number, seconds: number): { busyUs: number; self: Map<string, number> } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const spawning = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (f.functionName === 'ChildProcess.spawn' || f.url.includes('/native/')) return true;
    }
    return false;
  };
  let t = p.startTime;
  let spawnAt: number | undefined;
  const ts: number[] = [];
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    ts.push(t);
    if (spawnAt === undefined && spawning(p.samples[i]!)) spawnAt = t;
  }
  if (spawnAt === undefined) throw new Error('the profile never reaches the native step');
  const from = spawnAt + warmupS * 1e6;
  const to = from + seconds * 1e6;
  const self = new Map<string, number>();
  let busyUs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    if (ts[i]! < from || ts[i]! > to) continue;
    const f = byId.get(p.samples[i]!)!.callFrame;
    const dt = p.timeDeltas[i + 1] ?? 0; // a sample's time runs to the next one
    const file = f.url.split('/').slice(-2).join('/');
    const name = f.functionName.startsWith('(') ? f.functionName : `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + dt);
    if (name !== '(idle)') busyUs += dt;
  }
  return { busyUs, self };
}

const sink = await startSink();
const nginx = await startNginx(1, 20_000 + Math.floor(Math.random() * 2_000));
const rows: Array<Record<string, string | number>> = [];
const tops: string[][] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'kb-cli-prof-'));
    const load = loadAverage();
    const args = ['--cpu-prof', '--cpu-prof-dir', dir, KNEEBOARD, 'sweep', '--target', nginx.url, '-c', String(C), '-d', `${SECONDS}s`, '--warmup', `${WARMUP_S}s`];
    args.push('--engine', 'native', '--threads', '1', '--service', 'bench', '--release', 'cli-cpu', '--api', sink.url, '--spool-dir', join(dir, 'spool'), '--json');
    const r = await runPinned(0, process.execPath, args);
    if (r.code !== 0) throw new Error(`kneeboard exited ${r.code}: ${r.stderr}`);
    const level = (JSON.parse(r.stdout) as { levels: KneeboardLevel[] }).levels[0]!;
    const profile = JSON.parse(readFileSync(join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!), 'utf8')) as CpuProfile;
    const { busyUs, self } = stepWindow(profile, WARMUP_S, SECONDS);
    const events = level.qps * SECONDS;
    rows.push({
      round: round + 1,
      'req/s': Math.round(level.qps),
      'p50 ms': Number((level.p50_ms ?? Number.NaN).toFixed(3)),
      'CLI busy s': Number((busyUs / 1e6).toFixed(3)),
      'CLI ns/event': Math.round((busyUs * 1000) / events),
      'CLI share of core %': Number(((busyUs / 1e6 / SECONDS) * 100).toFixed(1)),
      'gc ms': Math.round((self.get('(garbage collector)') ?? 0) / 1000),
      load,
    });
    tops.push(
      [...self.entries()]
        .filter(([k]) => k !== '(idle)')
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([k, v]) => `${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`),
    );
  }
} finally {
  await nginx.stop();
  sink.server.close();
}
report('agent-cli-cpu', rows, {
  setup: `nginx 1 worker on core 1; kneeboard CLI + native engine (1 thread) on core 0; c = ${C}, ${WARMUP_S} s warm-up + ${SECONDS} s; CLI under node --cpu-prof`,
  median_ns_per_event: quantile(
    rows.map((r) => r['CLI ns/event'] as number),
    0.5,
  ),
  top_self_time: tops,
});
console.log('\nCLI self time, last round (top 12, idle excluded):');
for (const line of tops.at(-1) ?? []) console.log(`  ${line}`);
