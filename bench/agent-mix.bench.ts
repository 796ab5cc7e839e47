/**
 * A 20-endpoint request mix against a single request template at the same level: what picking a
 * request by weight per send costs the native engine (issue 27's target: ≤ 5% req/s loss).
 * nginx (one worker, every path answered `200 ok`) on core 1; `kneeboard sweep` on the native
 * engine with one thread on core 0; c = 50 closed loop; rounds rotate which goes first.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/agent-mix.bench.ts
 *   env: KB_BENCH_ROUNDS (3), KB_BENCH_SECONDS (4), KB_BENCH_C (50)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSink } from './agent-bench-lib.ts';
import { kneeboard, startNginx, type ToolResult } from './lib/load-tools.ts';
import { quantile, report } from './lib/report.ts';
import { runRounds } from './lib/rounds.ts';

const ROUNDS = Number(process.env.KB_BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.KB_BENCH_SECONDS ?? 4);
const C = Number(process.env.KB_BENCH_C ?? 50);
const ENDPOINTS = 20;

// Twenty endpoints of a plausible API: paths of different lengths, a query on some, a header on
// some, a small JSON body on every fifth (POST); weights from 1 to 20, so the picks are uneven.
const dir = mkdtempSync(join(tmpdir(), 'kb-bench-mix-'));
const mixFile = join(dir, 'mix.json');
writeFileSync(
  mixFile,
  JSON.stringify(
    Array.from({ length: ENDPOINTS }, (_, i) => ({
      name: `endpoint-${i + 1}`,
      method: i % 5 === 4 ? 'POST' : 'GET',
      path: `/api/v1/${'resource'.slice(0, 3 + (i % 6))}/${i + 1}${i % 3 === 0 ? `?page=${i}&size=20` : ''}`,
      ...(i % 4 === 1 ? { headers: { 'x-request-kind': `kind-${i}` } } : {}),
      ...(i % 5 === 4 ? { body: { id: i, items: [1, 2, 3] } } : {}),
      weight: i + 1,
    })),
  ),
);

const sink = await startSink();
const nginx = await startNginx(1, 26_000 + Math.floor(Math.random() * 2_000));
let samples: Awaited<ReturnType<typeof runRounds<ToolResult>>> = [];
try {
  const target = `${nginx.url}api/v1/res/1?page=0&size=20`;
  samples = await runRounds<ToolResult>(
    [
      { name: 'single template', run: () => kneeboard('native', 0, target, C, SECONDS, sink.url) },
      { name: `${ENDPOINTS}-endpoint mix`, run: () => kneeboard('native', 0, nginx.url, C, SECONDS, sink.url, ['--requests', mixFile]) },
    ],
    ROUNDS,
    (r) => `${Math.round(r.qps)} req/s, p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms`,
  );
} finally {
  await nginx.stop();
  sink.server.close();
}
const single = samples.filter((s) => s.tool === 'single template');
const ratios = samples
  .filter((s) => s.tool !== 'single template')
  .flatMap((s) => {
    const base = single.find((b) => b.round === s.round);
    return base ? [s.qps / base.qps] : [];
  });
const rows = ['single template', `${ENDPOINTS}-endpoint mix`].map((tool) => {
  const xs = samples.filter((s) => s.tool === tool);
  return {
    tool,
    'req/s (median)': Math.round(quantile(xs.map((s) => s.qps), 0.5)),
    'req/s range': `${Math.round(Math.min(...xs.map((s) => s.qps)))}–${Math.round(Math.max(...xs.map((s) => s.qps)))}`,
    'p50 ms': Number(quantile(xs.map((s) => s.p50), 0.5).toFixed(3)),
    'p99 ms': Number(quantile(xs.map((s) => s.p99), 0.5).toFixed(3)),
    '× single (median of rounds)': tool === 'single template' ? 1 : Number(quantile(ratios, 0.5).toFixed(3)),
    '× single range': tool === 'single template' ? '—' : `${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}`,
    load: `${Math.min(...xs.map((s) => s.load)).toFixed(0)}–${Math.max(...xs.map((s) => s.load)).toFixed(0)}`,
  };
});
report('agent-mix', rows, { setup: `nginx 1 worker on core 1; kneeboard sweep --engine native --threads 1 on core 0; c = ${C}; ${SECONDS} s + 1 s warm-up; ${ROUNDS} rotated rounds; target ≤ 5% req/s loss`, samples });
