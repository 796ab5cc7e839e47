/**
 * HTTP/2 at c = 50 streams, side by side in one run: nginx with TLS and h2 (one worker, self-signed
 * certificate made here) on core 1; h2load (nghttp2-client) with 1 connection × 50 streams,
 * `kneeboard sweep --http2` on the native engine (CLI + engine, one thread: 50 streams on the one
 * connection nginx's 128-stream limit allows) and the engine alone, on core 0, all at real-time
 * priority (lib/load-tools.ts PRIORITY). Rounds rotate the tools. Issue 27's target: native ≥ 0.95×
 * h2load's req/s, same connections and streams. h2load reports no percentiles (min/mean/max of
 * request time only), so latency is compared by the mean.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/agent-h2.bench.ts
 *   env: KB_BENCH_ROUNDS (2), KB_BENCH_SECONDS (5), KB_BENCH_C (50), KB_BENCH_OTHER_ENGINE (the path
 *   of another engine binary — e.g. one built from an older commit — for a fourth row through the
 *   same CLI, `--engine-binary`: a before/after in the same rounds), KB_BENCH_OTHER_CLI (another
 *   CLI entry — e.g. a bundle of an older commit, `node apps/agent/scripts/bundle-cli.mjs
 *   dist/before` — for a row of that CLI on this engine)
 */
import { startSink } from './agent-bench-lib.ts';
import { engineAlone, kneeboard, runPinned, startNginx, type ToolResult } from './lib/load-tools.ts';
import { quantile, report } from './lib/report.ts';
import { runRounds, type RoundSample } from './lib/rounds.ts';

const ROUNDS = Number(process.env.KB_BENCH_ROUNDS ?? 2);
const SECONDS = Number(process.env.KB_BENCH_SECONDS ?? 5);
const C = Number(process.env.KB_BENCH_C ?? 50);
const OTHER_ENGINE = process.env.KB_BENCH_OTHER_ENGINE;
const OTHER_CLI = process.env.KB_BENCH_OTHER_CLI;
const GENERATOR_CORE = 0;
const TARGET_CORE = 1;

/** h2load -c 1 -m C for SECONDS after a 1 s warm-up: its req/s and mean request time (ms). */
async function h2load(url: string): Promise<ToolResult> {
  const r = await runPinned(GENERATOR_CORE, 'h2load', ['-c', '1', '-m', String(C), '-t', '1', '-D', String(SECONDS), '--warm-up-time=1', url]);
  if (r.code !== 0) throw new Error(`h2load exited ${r.code}: ${r.stderr.slice(-300)}`);
  const qps = Number(/finished in [\d.]+s, ([\d.]+) req\/s/.exec(r.stdout)?.[1]);
  const ok = /requests: .*?(\d+) succeeded, (\d+) failed/.exec(r.stdout);
  if (!ok || ok[2] !== '0') throw new Error(`h2load: failed requests: ${r.stdout.slice(-500)}`);
  // "time for request:  min  max  mean  sd  +/- sd", in us or ms.
  const m = /time for request:\s+\S+\s+\S+\s+([\d.]+)(us|ms)/.exec(r.stdout);
  const mean = m ? Number(m[1]) / (m[2] === 'us' ? 1000 : 1) : Number.NaN;
  return { qps, p50: mean, p99: Number.NaN, cpuCores: r.cpuS / (SECONDS + 1), rssMiB: r.rssMiB };
}

type Sample = RoundSample<ToolResult>;

const sink = await startSink();
const nginx = await startNginx(TARGET_CORE, 28_000 + Math.floor(Math.random() * 2_000), { tls: true, http2: true });
const tools: Array<{ name: string; run: () => Promise<ToolResult> }> = [
  { name: 'h2load -c1 -m50', run: () => h2load(nginx.url) },
  { name: 'kneeboard native --http2', run: () => kneeboard('native', GENERATOR_CORE, nginx.url, C, SECONDS, sink.url, ['--insecure', '--http2']) },
  { name: 'engine alone --http2', run: () => engineAlone(GENERATOR_CORE, nginx.url, C, SECONDS, 1_000, ['--http2']) },
  ...(OTHER_ENGINE
    ? [{ name: 'kneeboard native --http2, other engine', run: () => kneeboard('native', GENERATOR_CORE, nginx.url, C, SECONDS, sink.url, ['--insecure', '--http2', '--engine-binary', OTHER_ENGINE]) }]
    : []),
  ...(OTHER_CLI ? [{ name: 'kneeboard native --http2, other CLI', run: () => kneeboard('native', GENERATOR_CORE, nginx.url, C, SECONDS, sink.url, ['--insecure', '--http2'], OTHER_CLI) }] : []),
];
let samples: Sample[] = [];
try {
  samples = await runRounds(tools, ROUNDS, (r) => `${Math.round(r.qps)} req/s, p50 (h2load: mean) ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms`);
} finally {
  await nginx.stop();
  sink.server.close();
}

/** Per round, a tool's req/s ÷ h2load's in the same round. */
const ratio = (tool: string) =>
  samples
    .filter((s) => s.tool === tool)
    .flatMap((s) => {
      const h = samples.find((x) => x.tool === tools[0]!.name && x.round === s.round);
      return h ? [s.qps / h.qps] : [];
    });
const rows = tools.map(({ name }) => {
  const xs = samples.filter((s) => s.tool === name);
  const q = ratio(name);
  return {
    tool: name,
    'req/s (median)': Math.round(quantile(xs.map((s) => s.qps), 0.5)),
    'p50 ms (h2load: mean)': Number(quantile(xs.map((s) => s.p50), 0.5).toFixed(3)),
    'p99 ms': Number(quantile(xs.map((s) => s.p99), 0.5).toFixed(3)),
    '× h2load req/s': q.length ? `${quantile(q, 0.5).toFixed(2)} (${Math.min(...q).toFixed(2)}–${Math.max(...q).toFixed(2)})` : '—',
    limited: xs.map((s) => s.limited ?? '—').join(' / '),
    load: xs.length ? `${Math.min(...xs.map((s) => s.load)).toFixed(0)}–${Math.max(...xs.map((s) => s.load)).toFixed(0)}` : '—',
  };
});
report('agent-h2', rows, {
  setup: `${OTHER_ENGINE ? `other engine: ${OTHER_ENGINE}; ` : ''}${OTHER_CLI ? `other CLI: ${OTHER_CLI}; ` : ''}nginx 1 worker, TLS (ECDSA P-256, self-signed; --insecure) + h2 on core ${TARGET_CORE}; h2load -c1 -m${C} -t1, kneeboard native --http2 (--threads 1) and the engine alone on core ${GENERATOR_CORE}; ${C} streams on 1 connection; ${SECONDS} s (+1 s warm-up); ${ROUNDS} rotated rounds`,
  target: 'native ≥ 0.95× h2load req/s (same connections and streams)',
  samples,
});
