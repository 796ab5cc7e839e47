/**
 * The agent's memory (peak RSS) holding 1,000 and 10,000 requests in flight against the demo
 * target (W = 20,000 slots, its own process), with the in-flight count it achieved and its own
 * verdict. S = 50 ms asks 200,000 req/s of the target at c = 10,000 — far past what a 2-core machine
 * serves — so c = 10,000 also runs at S = 1,000 ms (10,000 req/s, still about all this machine's
 * target can serve beside the agent) and S = 5,000 ms (2,000 req/s).
 * Each connection is a file descriptor: the shell raises `ulimit -n` for both processes first.
 *
 *   pnpm tsx bench/agent-memory.bench.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KNEEBOARD, rssMiB, startDemoTarget, startSink, type KneeboardLevel } from './agent-bench-lib.ts';
import { report } from './lib/report.ts';

const CASES: Array<[number, number]> = [
  [1, 50],
  [1_000, 50],
  [10_000, 50],
  [1_000, 1_000],
  [10_000, 1_000],
  [10_000, 5_000],
];
const sink = await startSink();
const rows: Array<Record<string, string | number>> = [];
for (const [c, serviceMs] of CASES) {
  const target = await startDemoTarget(['--workers', '20000', '--service-ms', String(serviceMs)]);
  try {
    const spool = mkdtempSync(join(tmpdir(), 'kb-bench-spool-'));
    const args = [KNEEBOARD, 'sweep', '--target', `${target.url}/`, '-c', String(c), '-d', '4s', '--warmup', '3s', '--service', 'bench', '--release', 'memory', '--api', sink.url, '--spool-dir', spool, '--json'];
    const child = spawn('bash', ['-c', `ulimit -n 20000; exec "$0" "$@"`, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    let peak = 0;
    const sampler = setInterval(() => {
      try {
        const rss = rssMiB(child.pid!);
        if (Number.isFinite(rss)) peak = Math.max(peak, rss);
      } catch {
        // the process has just exited
      }
    }, 50);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearInterval(sampler);
    if (code !== 0) throw new Error(`kneeboard exited ${code}: ${err}`);
    const l = (JSON.parse(out) as { levels: KneeboardLevel[] }).levels[0]!;
    rows.push({
      concurrency: c,
      'target S ms': serviceMs,
      'peak RSS MiB': Math.round(peak),
      'in-flight (direct)': l.health.in_flight_mean ?? Number.NaN,
      "in-flight (Little)": l.in_flight ?? Number.NaN,
      'req/s': Math.round(l.qps),
      'p50 ms': l.p50_ms ?? Number.NaN,
      'agent cpu': l.health.agent_cpu_cores ?? Number.NaN,
      'loop p99 ms': l.health.event_loop_delay_p99_ms ?? Number.NaN,
      limited: l.health.generator_limited ? `yes: ${l.health.reason}` : 'no',
    });
  } finally {
    await target.stop();
  }
}
sink.server.close();
report('agent-memory', rows, { target: { workers: 20_000 } });
