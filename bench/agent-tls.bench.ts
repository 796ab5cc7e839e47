/**
 * HTTPS at c = 50, side by side in one run: nginx with TLS (one worker, self-signed certificate made
 * here) on core 1; wrk -t1, `kneeboard sweep` on the native engine (CLI + engine, one thread) and
 * on the Node engine on core 0, all at real-time priority (see lib/load-tools.ts PRIORITY). Rounds
 * interleave the tools. "engine alone" is the engine binary without the CLI on its core (its frames
 * read by this unpinned bench process), as agent-engine-alone.bench.ts does for plain http: what
 * separates it from "kneeboard native" is the CLI's share of core 0. Issue 27's target: native ≥ 0.95× wrk's req/s, p99 ≤ 1.25× wrk's.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/agent-tls.bench.ts
 *   env: KB_BENCH_ROUNDS (2), KB_BENCH_SECONDS (5), KB_BENCH_C (50)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KNEEBOARD, startSink, type KneeboardLevel } from './agent-bench-lib.ts';
import { engineAlone, runPinned, startNginx, wrk, type ToolResult } from './lib/load-tools.ts';
import { quantile, report } from './lib/report.ts';
import { runRounds, type RoundSample } from './lib/rounds.ts';

const ROUNDS = Number(process.env.KB_BENCH_ROUNDS ?? 2);
const SECONDS = Number(process.env.KB_BENCH_SECONDS ?? 5);
const C = Number(process.env.KB_BENCH_C ?? 50);
const GENERATOR_CORE = 0;
const TARGET_CORE = 1;

async function kneeboardTls(engine: 'native' | 'node', url: string, api: string): Promise<ToolResult & { handshakes: string }> {
  const spool = mkdtempSync(join(tmpdir(), 'kb-bench-spool-'));
  const args = [KNEEBOARD, 'sweep', '--target', url, '--insecure', '-c', String(C), '-d', `${SECONDS}s`, '--warmup', '1s', '--engine', engine];
  if (engine === 'native') args.push('--threads', '1');
  args.push('--service', 'bench', '--release', 'tls', '--api', api, '--spool-dir', spool, '--json');
  const r = await runPinned(GENERATOR_CORE, process.execPath, args);
  if (r.code !== 0) throw new Error(`kneeboard exited ${r.code}: ${r.stdout}\n${r.stderr}`);
  const l = (JSON.parse(r.stdout) as { levels: Array<KneeboardLevel & { tls_handshakes?: { count: number; p50_ms: number; max_ms: number } }> }).levels[0]!;
  const h = l.tls_handshakes;
  return {
    qps: l.qps,
    p50: l.p50_ms ?? Number.NaN,
    p99: l.p99_ms ?? Number.NaN,
    cpuCores: l.health.agent_cpu_cores ?? Number.NaN,
    rssMiB: r.rssMiB,
    limited: l.health.generator_limited ? (l.health.reason ?? 'yes') : 'no',
    handshakes: h ? `${h.count} (p50 ${h.p50_ms} ms, max ${h.max_ms} ms)` : '—',
  };
}

type Sample = RoundSample<ToolResult & { handshakes?: string }>;

const sink = await startSink();
const nginx = await startNginx(TARGET_CORE, 26_000 + Math.floor(Math.random() * 2_000), { tls: true });
const tools: Array<{ name: string; run: () => Promise<ToolResult & { handshakes?: string }> }> = [
  { name: 'wrk -t1', run: () => wrk(GENERATOR_CORE, nginx.url, C, SECONDS) },
  { name: 'kneeboard native', run: () => kneeboardTls('native', nginx.url, sink.url) },
  { name: 'kneeboard node', run: () => kneeboardTls('node', nginx.url, sink.url) },
  { name: 'engine alone', run: () => engineAlone(GENERATOR_CORE, nginx.url, C, SECONDS) },
];
let samples: Sample[] = [];
try {
  samples = await runRounds(tools, ROUNDS, (r) => `${Math.round(r.qps)} req/s, p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms${r.handshakes ? `, handshakes ${r.handshakes}` : ''}`);
} finally {
  await nginx.stop();
  sink.server.close();
}

/** Per round, a tool's figure ÷ wrk's in the same round. */
const ratio = (tool: string, key: 'qps' | 'p99') =>
  samples
    .filter((s) => s.tool === tool)
    .flatMap((s) => {
      const w = samples.find((x) => x.tool === 'wrk -t1' && x.round === s.round);
      return w ? [s[key] / w[key]] : [];
    });
const rows = tools.map(({ name }) => {
  const xs = samples.filter((s) => s.tool === name);
  const q = ratio(name, 'qps');
  const p = ratio(name, 'p99');
  return {
    tool: name,
    'req/s (median)': Math.round(quantile(xs.map((s) => s.qps), 0.5)),
    'p50 ms': Number(quantile(xs.map((s) => s.p50), 0.5).toFixed(3)),
    'p99 ms': Number(quantile(xs.map((s) => s.p99), 0.5).toFixed(3)),
    '× wrk req/s': q.length ? `${quantile(q, 0.5).toFixed(2)} (${Math.min(...q).toFixed(2)}–${Math.max(...q).toFixed(2)})` : '—',
    '× wrk p99': p.length ? `${quantile(p, 0.5).toFixed(2)} (${Math.min(...p).toFixed(2)}–${Math.max(...p).toFixed(2)})` : '—',
    limited: xs.map((s) => s.limited ?? '—').join(' / '),
    load: xs.length ? `${Math.min(...xs.map((s) => s.load)).toFixed(0)}–${Math.max(...xs.map((s) => s.load)).toFixed(0)}` : '—',
  };
});
report('agent-tls', rows, {
  setup: `nginx 1 worker with TLS (ECDSA P-256, self-signed; --insecure) on core ${TARGET_CORE}; wrk -t1, kneeboard native (--threads 1), node and the engine alone on core ${GENERATOR_CORE}; c = ${C}; ${SECONDS} s (+1 s warm-up for kneeboard); ${ROUNDS} rotated rounds`,
  target: 'native ≥ 0.95× wrk req/s, p99 ≤ 1.25× wrk p99',
  samples,
});
