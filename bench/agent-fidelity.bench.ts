/**
 * Does the agent measure what a trusted tool measures? Against the demo target (W=8 slots, S=20 ms:
 * ceiling 400 req/s, knee at 8), Kneeboard's closed-loop QPS and p50 next to wrk's at the same
 * concurrency, and the queueing ground truth. Then a 1 s server stall under open-loop load:
 * Kneeboard `--rate` and `oha -q --latency-correction` measure from the intended send time and
 * must show the stall in p99; closed-loop tools (wrk, Kneeboard -c) hide it.
 *
 *   pnpm tsx bench/agent-fidelity.bench.ts
 */
import { parseOha, parseWrk, runKneeboard, runTimed, startDemoTarget, startSink, which } from './agent-bench-lib.ts';
import { report } from './lib/report.ts';

const W = 8;
const S = 20;
const LEVELS = [1, 4, 8, 16, 32];
const wrk = which('wrk');
const oha = which('oha');
const sink = await startSink();
const truth = (c: number) => ({ qps: (Math.min(c, W) * 1000) / S, p50: c <= W ? S : (c * S) / W });

const rows: Array<Record<string, string | number>> = [];
const target = await startDemoTarget(['--workers', String(W), '--service-ms', String(S)]);
try {
  const kb = await runKneeboard(['--target', `${target.url}/`, '-c', LEVELS.join(','), '-d', '3s', '--warmup', '1s'], sink.url);
  for (const c of LEVELS) {
    const k = kb.levels.find((l) => l.level === c)!;
    const w = wrk ? parseWrk((await runTimed(wrk, [`-t${Math.min(c, 2)}`, `-c${c}`, '-d3s', '--latency', `${target.url}/`])).stdout) : null;
    const t = truth(c);
    rows.push({
      concurrency: c,
      'truth qps': t.qps,
      'kneeboard qps': Number(k.qps.toFixed(1)),
      'wrk qps': w ? Number(w.qps.toFixed(1)) : '—',
      'truth p50 ms': t.p50,
      'kneeboard p50 ms': k.p50_ms ?? Number.NaN,
      'wrk p50 ms': w ? w.p50 : '—',
      'kneeboard in-flight': k.health.in_flight_mean ?? Number.NaN,
    });
  }
} finally {
  await target.stop();
}
report('agent-fidelity', rows, { target: { workers: W, service_ms: S } });

// A 1 s stall, 2 s after the first served request, under 200 req/s (half the ceiling) for 5 s.
const STALL = ['--workers', String(W), '--service-ms', String(S), '--stall-after-ms', '2000', '--stall-ms', '1000'];
const stallRows: Array<Record<string, string | number>> = [];
async function withStalledTarget(tool: string, model: string, run: (url: string) => Promise<{ qps: number; p50: number; p99: number; p999: number | null }>) {
  const t = await startDemoTarget(STALL);
  try {
    const r = await run(t.url);
    stallRows.push({ tool, model, 'qps': Number(r.qps.toFixed(1)), 'p50 ms': r.p50, 'p99 ms': r.p99, 'p99.9 ms': r.p999 ?? '—' });
  } finally {
    await t.stop();
  }
}
await withStalledTarget('kneeboard --rate 200', 'open, from intended time', async (url) => {
  const l = (await runKneeboard(['--target', `${url}/`, '--rate', '200', '-d', '5s', '--warmup', '0'], sink.url)).levels[0]!;
  return { qps: l.qps, p50: l.p50_ms!, p99: l.p99_ms!, p999: l.p999_ms };
});
if (oha) {
  await withStalledTarget('oha -q 200 --latency-correction', 'open, from intended time', async (url) => {
    const r = parseOha((await runTimed(oha, ['-q', '200', '--latency-correction', '-c', '400', '-z', '5s', '--no-tui', '--output-format', 'json', `${url}/`])).stdout);
    return { ...r };
  });
  await withStalledTarget('oha -q 200 (no correction)', 'rate-limited, from actual send', async (url) => {
    const r = parseOha((await runTimed(oha, ['-q', '200', '-c', '400', '-z', '5s', '--no-tui', '--output-format', 'json', `${url}/`])).stdout);
    return { ...r };
  });
}
await withStalledTarget('kneeboard -c 4', 'closed', async (url) => {
  const l = (await runKneeboard(['--target', `${url}/`, '-c', '4', '-d', '5s', '--warmup', '0'], sink.url)).levels[0]!;
  return { qps: l.qps, p50: l.p50_ms!, p99: l.p99_ms!, p999: l.p999_ms };
});
if (wrk) {
  await withStalledTarget('wrk -c 4', 'closed', async (url) => {
    const r = parseWrk((await runTimed(wrk, ['-t2', '-c4', '-d5s', '--latency', `${url}/`])).stdout);
    return { ...r, p999: null };
  });
}
report('agent-fidelity-stall', stallRows, { target: { workers: W, service_ms: S, stall_after_ms: 2000, stall_ms: 1000 }, note: 'wrk2 is not packaged in Debian; oha --latency-correction stands in for it' });
sink.server.close();
