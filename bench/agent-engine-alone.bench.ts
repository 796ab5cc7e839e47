/**
 * The native engine alone against wrk, without the kneeboard CLI on its core: nginx (one worker)
 * on core 1; wrk -t1, or the engine binary (one thread), on core 0; c = 50 closed loop; rounds
 * alternate. The engine's frames are counted by this bench process, which is not pinned (the
 * kernel puts it where there is room). What is left between this row and the CLI's row in
 * agent-throughput is the CLI's share of core 0.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/agent-engine-alone.bench.ts
 *   env: KB_BENCH_ROUNDS (5), KB_BENCH_SECONDS (5), KB_BENCH_C (50)
 */
import { loadAverage } from './lib/process-cpu.ts';
import { engineAlone, startNginx, wrk } from './lib/load-tools.ts';
import { quantile, report } from './lib/report.ts';

const ROUNDS = Number(process.env.KB_BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.KB_BENCH_SECONDS ?? 5);
const C = Number(process.env.KB_BENCH_C ?? 50);
const WARMUP_MS = 1_000;

interface Sample {
  round: number;
  tool: string;
  qps: number;
  p50: number;
  load: number;
}
const samples: Sample[] = [];
const nginx = await startNginx(1, 24_000 + Math.floor(Math.random() * 2_000));
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always runs right after the other.
    const order = round % 2 === 0 ? ['wrk -t1', 'engine alone'] : ['engine alone', 'wrk -t1'];
    for (const tool of order) {
      const load = loadAverage();
      const r = tool === 'wrk -t1' ? await wrk(0, nginx.url, C, SECONDS) : await engineAlone(0, nginx.url, C, SECONDS, WARMUP_MS);
      samples.push({ round, tool, qps: r.qps, p50: r.p50, load });
      console.log(`round ${round + 1} ${tool}: ${Math.round(r.qps)} req/s, p50 ${r.p50.toFixed(3)} ms (load ${load})`);
    }
  }
} finally {
  await nginx.stop();
}
const ratios = samples
  .filter((s) => s.tool === 'engine alone')
  .map((s) => s.qps / samples.find((w) => w.tool === 'wrk -t1' && w.round === s.round)!.qps);
const rows = ['wrk -t1', 'engine alone'].map((tool) => {
  const xs = samples.filter((s) => s.tool === tool);
  return {
    tool,
    'req/s (median)': Math.round(quantile(xs.map((s) => s.qps), 0.5)),
    'req/s range': `${Math.round(Math.min(...xs.map((s) => s.qps)))}–${Math.round(Math.max(...xs.map((s) => s.qps)))}`,
    'p50 ms': Number(quantile(xs.map((s) => s.p50), 0.5).toFixed(3)),
    '× wrk (median of rounds)': tool === 'wrk -t1' ? 1 : Number(quantile(ratios, 0.5).toFixed(2)),
    '× wrk range': tool === 'wrk -t1' ? '—' : `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
    load: `${Math.min(...xs.map((s) => s.load)).toFixed(0)}–${Math.max(...xs.map((s) => s.load)).toFixed(0)}`,
  };
});
report('agent-engine-alone', rows, { setup: `nginx 1 worker on core 1; wrk -t1 or the engine (1 thread) on core 0; c = ${C}; ${SECONDS} s; ${ROUNDS} alternating rounds`, samples });
