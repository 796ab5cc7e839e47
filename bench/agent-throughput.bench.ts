/**
 * Peak requests/s of the Kneeboard agent against the smallest loopback HTTP target (node:http
 * answering "ok", its own process), side by side with wrk, oha and autocannon at the same
 * concurrency, with the CPU each used. On a 2-core machine the target and the generator share the
 * cores, so these are "how far each tool gets when it has one core and the target the other".
 *
 *   pnpm tsx bench/agent-throughput.bench.ts
 */
import { performance } from 'node:perf_hooks';
import {
  AUTOCANNON_BIN,
  cpuMs,
  parseAutocannon,
  parseOha,
  parseWrk,
  runKneeboard,
  runTimed,
  startSink,
  startTrivialTarget,
  which,
  type Proc,
} from './agent-bench-lib.ts';
import { report } from './lib/report.ts';

const DURATION_S = 5;
const LEVELS = [1, 16, 256];
const wrk = which('wrk');
const oha = which('oha');

const sink = await startSink();
const target = await startTrivialTarget();
const rows: Array<Record<string, string | number>> = [];

/** Runs one tool and measures the target's CPU over the same wall time. */
async function measure(t: Proc, run: () => Promise<{ qps: number; p50: number; toolCores: number }>) {
  const cpu0 = cpuMs(t.pid);
  const w0 = performance.now();
  const r = await run();
  const targetCores = (cpuMs(t.pid) - cpu0) / (performance.now() - w0);
  return { ...r, targetCores };
}

try {
  for (const c of LEVELS) {
    const kb = await measure(target, async () => {
      const { levels } = await runKneeboard([`--target`, `${target.url}/`, '-c', String(c), '-d', `${DURATION_S}s`, '--warmup', '1s'], sink.url);
      const l = levels[0]!;
      rows.push({
        tool: 'kneeboard',
        concurrency: c,
        'req/s': Math.round(l.qps),
        'p50 ms': l.p50_ms ?? Number.NaN,
        'tool cpu (cores)': l.health.agent_cpu_cores ?? Number.NaN,
        'target cpu (cores)': 0,
        'req/s per tool core': Math.round(l.qps / (l.health.agent_cpu_cores ?? 1)),
        'flagged limited': l.health.generator_limited ? 'yes' : 'no',
      });
      return { qps: l.qps, p50: l.p50_ms ?? Number.NaN, toolCores: l.health.agent_cpu_cores ?? Number.NaN };
    });
    rows.at(-1)!['target cpu (cores)'] = kb.targetCores;

    const others: Array<[string, () => Promise<{ qps: number; p50: number; toolCores: number }>]> = [];
    if (wrk) {
      others.push([
        `wrk -t${Math.min(c, 2)}`,
        async () => {
          const r = await runTimed(wrk, [`-t${Math.min(c, 2)}`, `-c${c}`, `-d${DURATION_S}s`, '--latency', `${target.url}/`]);
          const p = parseWrk(r.stdout);
          return { qps: p.qps, p50: p.p50, toolCores: r.cpuS / DURATION_S };
        },
      ]);
    }
    if (oha) {
      others.push([
        'oha',
        async () => {
          const r = await runTimed(oha, ['-c', String(c), '-z', `${DURATION_S}s`, '--no-tui', '--output-format', 'json', `${target.url}/`]);
          const p = parseOha(r.stdout);
          return { qps: p.qps, p50: p.p50, toolCores: r.cpuS / DURATION_S };
        },
      ]);
    }
    const autocannon = AUTOCANNON_BIN;
    if (autocannon) {
      others.push([
        'autocannon',
        async () => {
          const r = await runTimed(autocannon, ['-c', String(c), '-d', String(DURATION_S), '--json', `${target.url}/`]);
          const p = parseAutocannon(r.stdout);
          return { qps: p.qps, p50: p.p50, toolCores: r.cpuS / DURATION_S };
        },
      ]);
    }
    for (const [tool, run] of others) {
      const r = await measure(target, run);
      rows.push({
        tool,
        concurrency: c,
        'req/s': Math.round(r.qps),
        'p50 ms': r.p50,
        'tool cpu (cores)': r.toolCores,
        'target cpu (cores)': r.targetCores,
        'req/s per tool core': Math.round(r.qps / r.toolCores),
        'flagged limited': '—',
      });
    }
  }
  const ratios = LEVELS.map((c) => {
    const kb = rows.find((r) => r.tool === 'kneeboard' && r.concurrency === c)!['req/s'] as number;
    const of = (prefix: string) => {
      const row = rows.find((r) => String(r.tool).startsWith(prefix) && r.concurrency === c);
      return row ? Number(((row['req/s'] as number) / kb).toFixed(2)) : null;
    };
    return { concurrency: c, wrk_over_kneeboard: of('wrk'), oha_over_kneeboard: of('oha'), autocannon_over_kneeboard: of('autocannon') };
  });
  report('agent-throughput', rows, { duration_s: DURATION_S, ratios, note: 'tool and target share 2 cores; tool cpu from process.cpuUsage (kneeboard, measurement window) or bash `times` over the run (others)' });
  console.log('ratios (other tool req/s ÷ kneeboard req/s):');
  for (const r of ratios) console.log(`  c=${r.concurrency}: wrk ${r.wrk_over_kneeboard}, oha ${r.oha_over_kneeboard}, autocannon ${r.autocannon_over_kneeboard}`);
} finally {
  await target.stop();
  sink.server.close();
}
