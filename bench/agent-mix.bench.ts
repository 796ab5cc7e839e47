/**
 * A 20-endpoint request mix against a single request template at the same level: what picking a
 * request by weight per send costs the native engine (issue 27's target: ≤ 5% req/s loss).
 * nginx (one worker, every path answered `200 ok`) on core 1; on core 0 either `kneeboard sweep`
 * on the native engine with one thread (the CLI and the engine together), or the engine binary
 * alone (its frames read by this process) — each with and without the mix; c = 50 closed loop;
 * rounds rotate the order.
 *
 *   flock /tmp/kb-bench.lock pnpm --dir bench exec tsx agent-mix.bench.ts
 *   env: KB_BENCH_ROUNDS (3), KB_BENCH_SECONDS (3), KB_BENCH_C (50)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRequestMix } from '../apps/agent/src/mix/request-mix.ts';
import { encodeRequestsFile } from '../apps/agent/src/native/native-request.ts';
import { startSink } from './agent-bench-lib.ts';
import { engineAlone, kneeboard, startNginx, type ToolResult } from './lib/load-tools.ts';
import { quantile, report } from './lib/report.ts';
import { runRounds } from './lib/rounds.ts';

const ROUNDS = Number(process.env.KB_BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.KB_BENCH_SECONDS ?? 3);
const C = Number(process.env.KB_BENCH_C ?? 50);
const ENDPOINTS = 20;

// Twenty GET endpoints whose requests are the same size as the single template's (two-digit ids),
// weights 1 to 20 so the picks are uneven: nginx does the same work either way, and what differs
// is the agent's — the pick per request and the per-name bookkeeping.
const dir = mkdtempSync(join(tmpdir(), 'kb-bench-mix-'));
const mixFile = join(dir, 'mix.json');
const pathOf = (i: number) => `/api/v1/endpoint-${String(i + 1).padStart(2, '0')}?page=1&size=20`;
writeFileSync(mixFile, JSON.stringify(Array.from({ length: ENDPOINTS }, (_, i) => ({ name: `endpoint-${i + 1}`, path: pathOf(i), weight: i + 1 }))));

// The same mix as the engine's --requests-file, for the engine-alone rows (as the CLI writes it).
const mix = loadRequestMix(mixFile);
const engineFile = join(dir, 'requests');
writeFileSync(
  engineFile,
  encodeRequestsFile(
    mix.requests.map((r) => ({ path: r.path, method: r.method, headers: { 'user-agent': 'kneeboard-agent', ...r.headers }, body: r.body, timeoutMs: 30_000 })),
    mix.requests.map((r) => r.weight),
  ),
);

const TOOLS = ['single template', `${ENDPOINTS}-endpoint mix`, 'engine alone, single', `engine alone, ${ENDPOINTS}-endpoint mix`] as const;
const sink = await startSink();
const nginx = await startNginx(1, 26_000 + Math.floor(Math.random() * 2_000));
let samples: Awaited<ReturnType<typeof runRounds<ToolResult>>> = [];
try {
  const target = `${nginx.url}${pathOf(0).slice(1)}`;
  samples = await runRounds<ToolResult>(
    [
      { name: TOOLS[0], run: () => kneeboard('native', 0, target, C, SECONDS, sink.url) },
      { name: TOOLS[1], run: () => kneeboard('native', 0, nginx.url, C, SECONDS, sink.url, ['--requests', mixFile]) },
      { name: TOOLS[2], run: () => engineAlone(0, target, C, SECONDS) },
      { name: TOOLS[3], run: () => engineAlone(0, nginx.url, C, SECONDS, 1_000, ['--requests-file', engineFile]) },
    ],
    ROUNDS,
    (r) => `${Math.round(r.qps)} req/s, p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms`,
  );
} finally {
  await nginx.stop();
  sink.server.close();
}
// Each mix row against its own single-template row (CLI with CLI, engine with engine), per round.
const baseOf = (tool: string) => (tool === TOOLS[1] ? TOOLS[0] : tool === TOOLS[3] ? TOOLS[2] : null);
const ratiosOf = (tool: string) =>
  samples
    .filter((s) => s.tool === tool)
    .flatMap((s) => {
      const base = samples.find((b) => b.tool === baseOf(tool) && b.round === s.round);
      return base ? [s.qps / base.qps] : [];
    });
const rows = TOOLS.map((tool) => {
  const xs = samples.filter((s) => s.tool === tool);
  const ratios = ratiosOf(tool);
  const single = baseOf(tool) === null;
  return {
    tool,
    'req/s (median)': Math.round(quantile(xs.map((s) => s.qps), 0.5)),
    'req/s range': `${Math.round(Math.min(...xs.map((s) => s.qps)))}–${Math.round(Math.max(...xs.map((s) => s.qps)))}`,
    'p50 ms': Number(quantile(xs.map((s) => s.p50), 0.5).toFixed(3)),
    'p99 ms': Number(quantile(xs.map((s) => s.p99), 0.5).toFixed(3)),
    '× single (median of rounds)': single ? 1 : Number(quantile(ratios, 0.5).toFixed(3)),
    '× single range': single ? '—' : `${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}`,
    load: `${Math.min(...xs.map((s) => s.load)).toFixed(0)}–${Math.max(...xs.map((s) => s.load)).toFixed(0)}`,
  };
});
report('agent-mix', rows, { setup: `nginx 1 worker on core 1; kneeboard sweep --engine native --threads 1, or the engine alone (1 thread), on core 0; c = ${C}; ${SECONDS} s + 1 s warm-up; ${ROUNDS} rotated rounds; target ≤ 5% req/s loss`, samples });
