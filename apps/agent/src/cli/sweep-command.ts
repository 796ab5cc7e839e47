import { Command, Option } from 'commander';
import { formatSlo } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { DEFAULT_ENGINE_BINARY, resolveEngine } from '../native/engine-binary.ts';
import { DEFAULT_CLOSED_LEVELS, SweepConfig } from '../sweep/config.ts';
import { runSweep } from '../sweep/run-sweep.ts';
import { EXIT, exitWithSweepError } from './exit-codes.ts';
import {
  collectHeader,
  collectTag,
  parseBody,
  parseDuration,
  parseLevels,
  parseMetricNames,
  parseNumbers,
  parsePositiveInt,
  parseRequestFile,
  parseRequestMix,
} from './parse-flags.ts';
import { coordinate } from './coordinate-command.ts';
import { tokenOption } from './token-option.ts';
import { describeFlagIssues, toSweepInput, type FieldPath, type SweepFlags } from './sweep-flags.ts';
import { createTerminalReporter } from './terminal-reporter.ts';
import { collectSlo, parsePrecision, searchSummary } from './search-flags.ts';
import { durationText, fleetDefault, sweepDefault, withDefault } from './flag-defaults.ts';

const opt = (flags: string, description: string) => new Option(flags, description);
/** A flag whose default is its SweepConfig field's, shown in --help (a duration as 10s, not 10000). */
const field = (flags: string, description: string, name: FieldPath, show?: (v: never) => string) => opt(flags, withDefault(description, sweepDefault(name), show));
const metricNames = (names: string[]) => names.join(',');
const duration = (flags: string, description: string, name: FieldPath) => field(flags, description, name, durationText).argParser(parseDuration);

export function sweepCommand(): Command {
  return new Command('sweep')
    .description('sweep a service through load levels: closed loop (fixed concurrency), open loop (fixed rate), or any knob via --param')
    .requiredOption('--target <url>', 'URL every request goes to')
    .addOption(opt('-c, --concurrency <list>', `closed loop: concurrency levels (default ${DEFAULT_CLOSED_LEVELS.join(',')}); with --param, the one concurrency held`).argParser(parseLevels))
    .addOption(opt('--levels <list>', 'the levels swept: concurrency (same as -c), or with --param that knob’s values').argParser(parseNumbers))
    .addOption(opt('-R, --rate <list>', 'open loop: requests/s per level, latency from the intended send time; with --param, the one rate held').argParser(parseNumbers))
    .addOption(field('--arrivals <kind>', 'open loop: uniform (as wrk2) or poisson spacing of sends', 'arrivals').choices(['uniform', 'poisson']))
    .addOption(duration('--think-time <time>', 'closed loop: pause after each response', 'thinkTimeMs'))
    .addOption(field('--max-connections <n>', 'connections to the target at most (open loop: sends beyond wait, late or missed)', 'maxConnections').argParser(parsePositiveInt))
    .option('--param <name>', 'sweep another knob (e.g. workers): --levels are its values, set by --before-level')
    .option('--before-level <cmd>', 'shell command run before each level, {level} replaced, e.g. restart the target')
    .option('--ready-url <url>', 'polled after --before-level until it answers a success, status 1–399 (default the target URL)')
    .addOption(duration('--ready-timeout <time>', 'longest wait for --before-level and readiness', 'readyTimeoutMs'))
    .option('--metrics-url <url>', "what the server spends: scrape its Prometheus text endpoint every second of each step (default metrics: process_cpu_seconds_total, process_resident_memory_bytes)")
    .option('--metric <selector>', "with a server source: another metric, 'alias=rate|mean|max(name{label=\"v\"})'; cpu= and mem= replace the defaults (repeatable)", collectSlo)
    .addOption(opt('--target-pid <pid>', "what the server spends: read /proc/PID every second of each step (a target on this host)").argParser(parsePositiveInt))
    .option('--cgroup <dir>', 'what the server spends: read a cgroup v2 directory (cpu.stat, memory.current) every second of each step')
    .option('--prometheus <url>', 'what the server spends: after each step, ask a Prometheus server (http://prom:9090) for the step\'s window, a value a second (query_range)')
    .option('--promql <name=expr>', "with --prometheus: a query, e.g. 'cpu=sum(rate(process_cpu_seconds_total{job=\"search\"}[15s]))'; cpu= and mem= replace the defaults (repeatable)", collectSlo)
    .addOption(opt('--cores <n>', 'the cores the target may use, for the CPU verdict (a cgroup says it in cpu.max)').argParser(Number))
    .addOption(duration('-d, --duration <time>', 'measured time per level (500ms, 10s, 2m)', 'durationMs'))
    .addOption(duration('--warmup <time>', 'unmeasured time at the start of each level', 'warmupMs'))
    .addOption(field('--repeat <n>', 'sweep the release n times as n runs, levels interleaved, so comparisons measure run-to-run noise', 'repeat').argParser(parsePositiveInt))
    .option('--refine', 'at the end, add levels inside the knee’s bracket where the grid is coarse, to place the knee closer')
    .option('--slo <clause>', "a service-level objective, e.g. 'p99<=50ms' or 'errors<=1%' (repeatable, or comma-separated): p50, p90, p99, p99.9, compute_/queue_p50/p99 in ms, s or us; errors in %", collectSlo)
    .option('--search', 'find the capacity under --slo: grow from the first level until an SLO breaks, then narrow the bracket (instead of walking the levels)')
    .addOption(field('--precision <pct>', '--search: narrow the bracket to this share of the level', 'precision', (v: number) => `${v * 100}%`).argParser(parsePrecision))
    .addOption(field('--max-over <n>', '--search: levels run at or past the first that breaks an SLO, at most', 'maxOver').argParser(parsePositiveInt))
    .requiredOption('--service <name>', 'service under test')
    .requiredOption('--release <label>', 'release or build being measured')
    .option('--name <name>', 'a name for this run')
    .option('--git-sha <sha>', 'commit being measured')
    .option('--tag <key=value>', 'a tag on the run (repeatable)', collectTag)
    .option('--method <method>', 'HTTP method (default GET, or POST with a body)')
    .option('-H, --header <header>', "request header 'Name: value' (repeatable)", collectHeader)
    .option('--body <text|@file>', 'request body, or @path to read it from a file', parseBody)
    .option('--request-file <path>', 'JSON {method, path, headers, body}; flags override its fields', parseRequestFile)
    .option('--requests <file>', 'a request mix: mix.json [{name, method, url|path, headers, body, weight}…] or a browser HAR (weight = count); each request picked by weight, its name on its events', parseRequestMix)
    .addOption(duration('--timeout <time>', 'longest wait for a response, then it counts as an error', 'request.timeoutMs'))
    .addOption(field('--compute-metric <names>', 'Server-Timing metric(s) read as compute, first present wins', 'serverTiming.compute', metricNames).argParser(parseMetricNames))
    .addOption(field('--queue-metric <names>', 'Server-Timing metric(s) read as queue, first present wins', 'serverTiming.queue', metricNames).argParser(parseMetricNames))
    .option('--agent-id <id>', 'this agent in the stored events (default <hostname>-<pid>)')
    .addOption(field('--api <url>', 'Kneeboard API', 'api'))
    .addOption(tokenOption())
    .addOption(field('--web <url>', 'Kneeboard web UI, for the run link', 'web'))
    .addOption(field('--spool-dir <dir>', 'where undelivered API calls wait on disk', 'spoolDir'))
    .addOption(duration('--flush-interval <time>', 'a batch of events leaves at least this often', 'flushIntervalMs'))
    .addOption(duration('--delivery-timeout <time>', 'at the end, how long to wait for the API before leaving the rest in the spool', 'deliveryTimeoutMs'))
    .addOption(field('--engine <engine>', 'load engine: native (Rust, apps/agent/engine), node, or auto (native when built)', 'engine').choices(['auto', 'node', 'native']))
    .option('--insecure', 'https:// targets: accept any certificate (self-signed, another name) — a warning is printed')
    .option('--ca-file <pem>', 'https:// targets: PEM certificates to trust besides the system roots (a private CA, or the server’s own certificate)')
    .addOption(field('--http <version>', 'native engine: 1.1, 2 (HTTP/2: prior knowledge on http://, ALPN h2 on https://) or auto (https://: what the server picks by ALPN)', 'http').choices(['1.1', '2', 'auto']))
    .option('--http2', 'native engine: HTTP/2, the same as --http 2 (the level is streams in flight)')
    .addOption(opt('--connections <n>', 'HTTP/2: connections the streams are spread over (default: as few as the server’s stream limit allows)').argParser(parsePositiveInt))
    .addOption(opt('--threads <n>', 'native engine: worker threads (default: the cores this process may use)').argParser(parsePositiveInt))
    .option('--engine-binary <path>', 'native engine: the binary to run (default: the one cargo builds in apps/agent/engine)')
    .option('--json', 'print the final per-level table as JSON on stdout (the live view goes to stderr)')
    .addOption(opt('--agents <n>', 'coordinate n agents (`kneeboard agent --join RUN` on each load host) that share every step; this process sends no load').argParser(parsePositiveInt))
    .addOption(opt('--agent-timeout <time>', withDefault('with --agents: an agent silent this long during a step is dead and the step partial', fleetDefault('heartbeat_timeout_ms'), durationText)).argParser(parseDuration))
    .addOption(opt('--barrier-lead <time>', withDefault('with --agents: how far ahead each step’s start is set, for every agent to receive it', fleetDefault('lead_ms'), durationText)).argParser(parseDuration))
    .addHelpText(
      'after',
      `
Examples:
  kneeboard sweep --target http://127.0.0.1:4100/ -c 1,2,4,8,16 -d 10s --service demo --release v1
  kneeboard sweep --target http://127.0.0.1:4100/ --rate 100,200,400 --arrivals poisson --service demo --release v1
  kneeboard sweep --target http://127.0.0.1:4100/ --param workers --levels 1,2,4 -c 16 \\
    --before-level './restart.sh --workers {level}' --service demo --release v1
  kneeboard sweep --target http://10.0.0.5:8080/ -c 30,60,120 --service demo --release v1 --agents 3
    (then \`kneeboard agent --api <this API> --join <run id>\` on each of 3 load hosts)

Exit codes: 0 done, 1 failed (target or API unreachable, API error, events lost or left in the
spool), 2 bad flags, 130 stopped with Ctrl-C (the step in progress is closed, events flushed, the
run finished as 'aborted').`,
    )
    .action(sweep);
}

async function sweep(flags: SweepFlags): Promise<void> {
  const mapped = toSweepInput(flags);
  if ('error' in mapped) {
    process.stderr.write(`error: ${mapped.error}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  const { input, levelsFlag } = mapped;
  const checked = SweepConfig.safeParse(input);
  if (!checked.success) {
    for (const line of describeFlagIssues(checked.error, levelsFlag)) process.stderr.write(`error: ${line}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  const cfg = checked.data;
  if (flags.agents !== undefined) return coordinate(cfg, { agents: flags.agents, heartbeatTimeoutMs: flags.agentTimeout, leadMs: flags.barrierLead }, flags.json === true);
  const reporter = createTerminalReporter({ out: flags.json ? process.stderr : process.stdout, err: process.stderr, loadModel: cfg.loadModel, parameter: cfg.parameter });
  const load =
    cfg.hold === undefined
      ? `${cfg.loadModel === 'closed' ? 'concurrency' : `${cfg.arrivals} rate (req/s)`} ${cfg.levels.join(',')}`
      : `${cfg.parameter} ${cfg.levels.join(',')} at ${cfg.loadModel === 'closed' ? `concurrency ${cfg.hold}` : `${cfg.hold} req/s`}`;
  const chosen = resolveEngine(cfg.engine, new URL(cfg.target), cfg.engineBinary ?? DEFAULT_ENGINE_BINARY, cfg.http);
  const http = cfg.http === '2' ? ', HTTP/2' : cfg.http === 'auto' ? ', HTTP by ALPN' : '';
  const engine = 'engine' in chosen ? ` · ${chosen.engine} engine${chosen.engine === 'native' && cfg.threads !== undefined ? `, ${cfg.threads} threads` : ''}${http}` : '';
  if (cfg.insecure) process.stderr.write(`warning: --insecure: the certificate of ${new URL(cfg.target).host} is not checked; anyone in between could answer for it\n`);
  reporter.say(`sweep ${cfg.request.method} ${cfg.target} · ${cfg.loadModel} loop · ${load} · ${cfg.warmupMs / 1000} s warm-up + ${cfg.durationMs / 1000} s measured per level${engine}`);

  const stop = new AbortController();
  let runCreated = false;
  const onSigint = () => {
    // Before the run exists there is nothing to flush or finish.
    if (!runCreated) process.exit(EXIT.interrupted);
    reporter.say('stopping: closing the current step, flushing events, marking the run aborted (Ctrl-C again to quit at once)');
    process.once('SIGINT', () => process.exit(EXIT.interrupted));
    stop.abort();
  };
  process.once('SIGINT', onSigint);

  try {
    const result = await runSweep(input, {
      signal: stop.signal,
      reporter: {
        ...reporter,
        runCreated: (run) => {
          runCreated = true;
          reporter.runCreated?.(run);
        },
        searchStep: (step) => {
          if (!step.done) reporter.say(`search: ${cfg.parameter} ${formatLevel(step.level)} — ${step.reason}`);
        },
      },
    });
    const u = result.upload;
    const spooled = u.spooledEntries > 0;
    reporter.say(
      `\n${result.status === 'aborted' ? 'stopped' : 'done'}: ${u.recorded} requests recorded, ${u.uploaded} uploaded in ${u.batches} batches` +
        `${u.lostEvents > 0 ? `, ${u.lostEvents} LOST` : ''} · ${result.runUrl}`,
    );
    if (result.runIds.length > 1) {
      reporter.say(
        `${result.runIds.length} repeats of ${cfg.run.release}: ${result.runIds.join(',')}\n` +
          `compare them as one group: kneeboard compare --base ${result.runIds.join(',')} --head <other runs>`,
      );
    }
    if (result.search) reporter.say(searchSummary(result.search, cfg.parameter, cfg.slos.map((c) => formatSlo(c)).join(', ')));
    if (result.refinedLevels.length > 0) reporter.say(`--refine added ${cfg.parameter} ${result.refinedLevels.join(', ')} inside the knee's bracket`);
    if (spooled) {
      reporter.warn?.(
        `the API did not take everything in time: ${u.spooledEvents} events (${u.spooledEntries} calls) wait in ${u.spoolDir}. ` +
          `Send them with \`kneeboard flush --spool-dir ${u.spoolDir} --api ${cfg.api}\` (the next sweep also does).`,
      );
    }
    if (flags.json) {
      const { runId, runIds, refinedLevels, runUrl, status, loadModel, parameter, levels, engine, search } = result;
      const upload = {
        recorded: u.recorded,
        uploaded: u.uploaded,
        batches: u.batches,
        duplicate_batches: u.duplicateBatches,
        lost_events: u.lostEvents,
        spooled_events: u.spooledEvents,
        spool_dir: u.spoolDir,
      };
      process.stdout.write(`${JSON.stringify({ run_id: runId, run_ids: runIds, refined_levels: refinedLevels, run_url: runUrl, status, engine, load_model: loadModel, parameter, levels, upload, ...(search ? { search } : {}) }, null, 2)}\n`);
    }
    process.exitCode = result.status === 'aborted' ? EXIT.interrupted : u.lostEvents > 0 || spooled ? EXIT.failed : EXIT.ok;
  } catch (err) {
    exitWithSweepError(err);
  } finally {
    process.off('SIGINT', onSigint);
  }
}
