/**
 * Does the native engine scale with threads? The same closed loop on `--threads 1` and
 * `--threads 2`, both cores given to it, rounds interleaved, medians of the per-round ratio.
 *
 * - engine-bound: every response costs the engine thread a fixed extra CPU time (the binary
 *   wrapped by apps/agent/test/support/cpu-burn.ts with its `--cpu-burn-ms` test flag, run through
 *   `--engine-binary`), so a thread tops out at ~1/burn req/s and the target (nginx, idle most
 *   of the time at that rate) is not the limit. This isolates the engine's own design: threads
 *   share nothing on the hot path, so 2 threads should do ~2× one.
 * - box-bound: no burn, nginx with 2 workers on the same 2 cores. Generator and target then share
 *   the machine, so this row shows what the box allows, not the engine's scaling.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/agent-threads.bench.ts
 *   env: KB_BENCH_ROUNDS (3), KB_BENCH_SECONDS (4), KB_BENCH_BURN_MS (0.1)
 */
import { cpuBurningEngine } from '../apps/agent/test/support/cpu-burn.ts';
import { startSink, type KneeboardLevel, KNEEBOARD } from './agent-bench-lib.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAverage } from './lib/process-cpu.ts';
import { runPinned, startNginx } from './lib/load-tools.ts';
import { quantile, report } from './lib/report.ts';

const ROUNDS = Number(process.env.KB_BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.KB_BENCH_SECONDS ?? 4);
const BURN_MS = Number(process.env.KB_BENCH_BURN_MS ?? 0.1);
const C = 64;
const CORES = '0,1';

const sink = await startSink();

async function sweep(url: string, threads: number, burnMs: number): Promise<{ qps: number; cpu: number; limited: boolean }> {
  const args = [KNEEBOARD, 'sweep', '--target', url, '-c', String(C), '-d', `${SECONDS}s`, '--warmup', '1s', '--engine', 'native', '--threads', String(threads)];
  if (burnMs > 0) args.push('--engine-binary', cpuBurningEngine(burnMs));
  args.push('--service', 'bench', '--release', 'threads', '--api', sink.url, '--spool-dir', mkdtempSync(join(tmpdir(), 'kb-bench-spool-')), '--json');
  const r = await runPinned(CORES, process.execPath, args);
  if (r.code !== 0) throw new Error(`kneeboard exited ${r.code}: ${r.stderr}`);
  const l = (JSON.parse(r.stdout) as { levels: KneeboardLevel[] }).levels[0]!;
  return { qps: l.qps, cpu: l.health.agent_cpu_cores ?? Number.NaN, limited: l.health.generator_limited };
}

interface Sample {
  scenario: string;
  threads: number;
  round: number;
  qps: number;
  cpu: number;
  load: number;
}
const samples: Sample[] = [];
const scenarios = [
  { name: `engine-bound (${BURN_MS} ms CPU per response in the engine; nginx 1 worker)`, workers: 1, burn: BURN_MS },
  { name: 'box-bound (no burn; nginx 2 workers on the same 2 cores)', workers: 2, burn: 0 },
];
for (const sc of scenarios) {
  const nginx = await startNginx(CORES, 22_000 + Math.floor(Math.random() * 2_000), { workers: sc.workers });
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const threads of [1, 2]) {
        const load = loadAverage();
        const r = await sweep(nginx.url, threads, sc.burn);
        samples.push({ scenario: sc.name, threads, round, qps: r.qps, cpu: r.cpu, load });
        console.log(`${sc.name} round ${round + 1}, ${threads} thread(s): ${Math.round(r.qps)} req/s, ${r.cpu.toFixed(2)} cores (load ${load})`);
      }
    }
  } finally {
    await nginx.stop();
  }
}
sink.server.close();

const median = (xs: number[]) => quantile(xs, 0.5);
const rows = scenarios.map((sc) => {
  const of = (t: number) => samples.filter((s) => s.scenario === sc.name && s.threads === t);
  const ratios = of(2).map((s) => s.qps / of(1).find((o) => o.round === s.round)!.qps);
  return {
    scenario: sc.name,
    '1 thread req/s': Math.round(median(of(1).map((s) => s.qps))),
    '2 threads req/s': Math.round(median(of(2).map((s) => s.qps))),
    '2t ÷ 1t (median)': Number(median(ratios).toFixed(2)),
    '2t ÷ 1t (range)': `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
    '1t cores': Number(median(of(1).map((s) => s.cpu)).toFixed(2)),
    '2t cores': Number(median(of(2).map((s) => s.cpu)).toFixed(2)),
    load: `${Math.min(...samples.map((s) => s.load)).toFixed(0)}–${Math.max(...samples.map((s) => s.load)).toFixed(0)}`,
  };
});
report('agent-threads', rows, { setup: `kneeboard native, c = ${C}, ${SECONDS} s (+1 s warm-up), generator and nginx on cores ${CORES}; ${ROUNDS} interleaved rounds`, samples });
