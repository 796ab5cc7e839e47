import { formatQps } from '@kneeboard/contracts/figures';
import { Command, InvalidArgumentError } from 'commander';
import { startDemoTarget } from './demo-target.ts';
import { DEMO_TARGET_DEFAULTS } from './options.ts';

function parseNumber(kind: 'integer' | 'number', min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || (kind === 'integer' && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`expected ${kind === 'integer' ? 'an integer' : 'a number'} ≥ ${min}.`);
    }
    return n;
  };
}

const program = new Command('demo-target')
  .description('An HTTP service with a known latency-versus-load curve: W slots, service time S, a FIFO queue.')
  .option('-w, --workers <n>', 'worker slots W (requests served at once)', parseNumber('integer', 1), DEMO_TARGET_DEFAULTS.workers)
  .option('-s, --service-ms <ms>', 'service time S per request, held by a timer', parseNumber('number', 0), DEMO_TARGET_DEFAULTS.serviceMs)
  .option('-j, --jitter-ms <ms>', 'uniform jitter: each service time is drawn from [S−J, S+J] (J ≤ S)', parseNumber('number', 0), DEMO_TARGET_DEFAULTS.jitterMs)
  .option('-p, --port <port>', 'port (0 = any free port)', parseNumber('integer', 0), DEMO_TARGET_DEFAULTS.port)
  .option('--host <host>', 'interface to listen on', DEMO_TARGET_DEFAULTS.host)
  .option('--stall-after-ms <ms>', 'a one-off stall this long after the first served request', parseNumber('number', 0), DEMO_TARGET_DEFAULTS.stallAfterMs)
  .option('--stall-ms <ms>', 'how long the stall lasts: no slot is granted meanwhile (0 = no stall)', parseNumber('number', 0), DEMO_TARGET_DEFAULTS.stallMs)
  .option('--cpu-ms <ms>', 'real CPU burnt per served request (a busy loop inside its service time; 0 = none)', parseNumber('number', 0), DEMO_TARGET_DEFAULTS.cpuMs)
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

program.parse();
const flags = program.opts<{ workers: number; serviceMs: number; jitterMs: number; port: number; host: string; stallAfterMs: number; stallMs: number; cpuMs: number }>();

if (flags.jitterMs > flags.serviceMs) {
  console.error(`error: --jitter-ms (${flags.jitterMs}) must not exceed --service-ms (${flags.serviceMs}): service times cannot go below 0.`);
  process.exit(2);
}

const target = await startDemoTarget(flags).catch((err: NodeJS.ErrnoException) => {
  const cause = err.code === 'EADDRINUSE' ? `port ${flags.port} is already in use (pass --port 0 for any free port)` : err.message;
  console.error(`error: cannot listen on ${flags.host}:${flags.port}: ${cause}`);
  process.exit(1);
});

const maxQps = flags.serviceMs > 0 ? `${formatQps((flags.workers * 1000) / flags.serviceMs)} req/s` : 'unbounded';
console.log(`demo target listening on ${target.url}`);
console.log(
  `  ${flags.workers} workers × ${flags.serviceMs} ms${flags.jitterMs > 0 ? ` ± ${flags.jitterMs} ms` : ''}` +
    ` → max throughput ${maxQps}, knee at concurrency ${flags.workers}`,
);
if (flags.cpuMs > 0) {
  // One event loop: the busy loops run one at a time, so CPU caps throughput at 1000/cpuMs req/s.
  console.log(`  burns ${flags.cpuMs} ms of CPU per request (at most ${formatQps(1000 / flags.cpuMs)} req/s on one core)`);
}
if (flags.stallMs > 0) console.log(`  stalls for ${flags.stallMs} ms, ${flags.stallAfterMs} ms after the first served request`);
console.log(`  GET /healthz for readiness, GET /stats for in-flight counters, GET /metrics for Prometheus; any other request is served`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    target.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('error while closing:', err);
        process.exit(1);
      },
    );
  });
}
