import { Command, InvalidArgumentError, Option } from 'commander';
import { ApiHttpError, callApi } from '@kneeboard/api-client';
import { ENDPOINTS, type RunDetail } from '@kneeboard/contracts';
import { formatLevel, formatMs, formatQps, formatSeconds } from '@kneeboard/contracts/figures';
import { parsePromQueries } from '@kneeboard/server-metrics';
import { runFollow } from '../import/follow.ts';
import { K6_DEFAULT_LATENCY_METRIC, K6_LATENCY_METRICS } from '../import/k6.ts';
import { runImport, type ImportResult } from '../import/run-import.ts';
import { IMPORT_TOOLS, toolSpec, type ToolVariant } from '../import/tools.ts';
import { EXIT, exitWithSweepError } from './exit-codes.ts';
import { collectTag, parseDuration, parseNumbers, parsePositiveInt } from './parse-flags.ts';
import { durationText, importDefault, withDefault } from './flag-defaults.ts';

interface ImportFlags {
  level?: number[];
  warmup?: number;
  service?: string;
  release?: string;
  name?: string;
  gitSha?: string;
  tag?: Record<string, string>;
  run?: string;
  api?: string;
  web?: string;
  loadModel?: 'closed' | 'open';
  param?: string;
  latencyMetric: ToolVariant['latencyMetric'];
  batchSize?: number;
  deliveryTimeout?: number;
  inFlight?: number;
  token?: string;
  follow?: boolean;
  followIdle?: number;
  json?: boolean;
  prometheus?: string;
  promql?: string[];
  cores?: number;
}

const opt = (flags: string, description: string) => new Option(flags, description);
/** A flag whose default is its ImportConfig field's (given none of its own), shown in --help. */
const field = (flags: string, description: string, name: Parameters<typeof importDefault>[0], show?: (v: never) => string) => opt(flags, withDefault(description, importDefault(name), show));
const duration = (flags: string, description: string, name: Parameters<typeof importDefault>[0]) => field(flags, description, name, durationText).argParser(parseDuration);

export function importCommand(): Command {
  return new Command('import')
    .description("import a load tool's own output as a Kneeboard run: k6, vegeta, oha, jmeter, gatling")
    .argument('<tool>', `the tool that wrote the files: ${IMPORT_TOOLS.join(', ')}`, (v: string) => {
      if (!(IMPORT_TOOLS as readonly string[]).includes(v)) throw new InvalidArgumentError(`"${v}" is not one of ${IMPORT_TOOLS.join(', ')}.`);
      return v;
    })
    .argument('<files...>', 'its output files; several files with --level a,b,c are a sweep, one level per file')
    .addOption(opt('--level <list>', 'the load of each file (one value for all, or one per file); default: from the tool’s own schedule').argParser(parseNumbers))
    .addOption(duration('--warmup <time>', 'unmeasured time at the start of each step (still stored)', 'warmupMs'))
    .option('--service <name>', 'service under test (for a new run)')
    .option('--release <label>', 'release or build measured (for a new run)')
    .option('--name <name>', 'a name for the new run')
    .option('--git-sha <sha>', 'commit measured')
    .option('--tag <key=value>', 'a tag on the new run (repeatable)', collectTag)
    .option('--run <id>', 'import into this existing run instead of a new one (it is not finished by the import)')
    .addOption(opt('--load-model <model>', 'closed (users, VUs, threads) or open (a rate); default per tool').choices(['closed', 'open']))
    .option('--param <name>', 'what the level is (default per tool: vus, rate, concurrency, threads, users)')
    .addOption(opt('--latency-metric <metric>', 'k6: the metric read as latency').choices(K6_LATENCY_METRICS).default(K6_DEFAULT_LATENCY_METRIC))
    .addOption(field('--batch-size <n>', 'requests per batch sent to the API (≤ 100000)', 'maxBatchEvents').argParser(parsePositiveInt))
    .addOption(duration('--delivery-timeout <time>', 'at the end, how long to wait for the API', 'deliveryTimeoutMs'))
    .addOption(field('--in-flight <n>', 'batches posted at once', 'inFlight').argParser(parsePositiveInt))
    .option('--follow', 'live: read one file as it is written (or - for stdin) and draw the curve while the test runs; ends at EOF, when the file stops growing, or on Ctrl-C')
    .addOption(duration('--follow-idle <time>', '--follow on a file: the test is over when the file has not grown for this long', 'followIdleMs'))
    .addOption(opt('--token <token>', 'API token (ingest scope is enough)').env('KNEEBOARD_TOKEN'))
    .addOption(field('--api <url>', 'Kneeboard API', 'api'))
    .addOption(field('--web <url>', 'Kneeboard web UI, for the run link', 'web'))
    .option('--json', 'print the report as JSON on stdout (progress goes to stderr)')
    .option('--prometheus <url>', "what the server spent: once imported, the API reads each step's window from this Prometheus (query_range, a value a second; a write token when tokens are required)")
    .option('--promql <name=expr>', "with --prometheus: a query (cpu= and mem= replace the defaults; repeatable), as sweep --promql", (v: string, prev: string[] = []) => [...prev, v])
    .addOption(opt('--cores <n>', 'with --prometheus: the cores the target may use, for the CPU verdict').argParser(Number))
    .addHelpText(
      'after',
      `
Examples:
  k6 run --out json=k6.json script.js && kneeboard import k6 k6.json --service shop --release v2
  k6 run --out json=- script.js | kneeboard import k6 - --follow --service shop --release v2   # live
  vegeta attack -rate 200 -duration 30s < targets | vegeta encode > r200.json   # one file per rate
  kneeboard import vegeta r100.json r200.json r400.json --level 100,200,400 --service shop --release v2
  oha -c 16 -z 30s --db-url c16.db http://127.0.0.1:8080/ && kneeboard import oha c16.db --level 16 --service shop --release v2

Importing the same files again with the same options stores them once: the run is found by a tag
holding their SHA-256, and batch ids derive from it. Bad lines are counted and shown, never fatal.
Exit codes: 0 done, 1 failed (API unreachable or refused), 2 bad flags or unreadable files.`,
    )
    .action(importAction);
}

async function importAction(toolName: string, files: string[], flags: ImportFlags): Promise<void> {
  const out = flags.json ? process.stderr : process.stdout;
  const say = (m: string) => out.write(`${m}\n`);
  const tool = toolSpec(toolName, { latencyMetric: flags.latencyMetric });
  const problem = prometheusFlagsProblem(flags);
  if (problem) {
    process.stderr.write(`error: ${problem}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  const run =
    flags.service !== undefined || flags.release !== undefined
      ? { service: flags.service ?? '', release: flags.release ?? '', name: flags.name, git_sha: flags.gitSha, tags: flags.tag ?? {} }
      : undefined;
  // Ctrl-C during --follow ends the stream: what was read is sent and the run is finished.
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  if (flags.follow) process.once('SIGINT', onSigint);
  try {
    const result = await (flags.follow ? runFollow : runImport)(
      tool,
      {
        files,
        levels: flags.level,
        warmupMs: flags.warmup,
        api: flags.api,
        web: flags.web,
        runId: flags.run,
        run,
        loadModel: flags.loadModel,
        parameter: flags.param,
        maxBatchEvents: flags.batchSize,
        deliveryTimeoutMs: flags.deliveryTimeout,
        inFlight: flags.inFlight,
        token: flags.token,
        follow: flags.follow,
        followIdleMs: flags.followIdle,
      },
      {
        runChosen: ({ runUrl, how }) =>
          say(
            how === 'done'
              ? `already imported: these files were stored in ${runUrl}; nothing sent`
              : `${how === 'resume' ? 'resuming an unfinished import of the same files into' : how === 'given' ? 'importing into' : 'run'} ${runUrl}`,
          ),
        progress: (p) => {
          const pct = p.bytes > 0 ? Math.floor((100 * p.bytesRead) / p.bytes) : 100;
          process.stderr.write(`  ${p.file} (${p.fileIndex + 1}/${p.files}): ${pct}% · ${p.events.toLocaleString('en-US')} requests\n`);
        },
        warn: (m) => process.stderr.write(`warning: ${m}\n`),
      },
      stop.signal,
    );
    const api = flags.api ?? String(importDefault('api'));
    printReport(result, say, await storedCurve(api, result.runId));
    if (flags.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.exitCode = EXIT.ok;
    if (flags.prometheus !== undefined && !(await readPrometheus(api, result.runId, flags, say))) process.exitCode = EXIT.failed;
  } catch (err) {
    exitWithSweepError(err);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** --promql without --prometheus, a query that cannot be one, a bad --cores: told before anything is read or sent. */
function prometheusFlagsProblem(flags: ImportFlags): string | null {
  if (flags.prometheus === undefined) return flags.promql !== undefined ? '--promql needs --prometheus (the server the queries go to)' : flags.cores !== undefined ? '--cores needs --prometheus' : null;
  if (!URL.canParse(flags.prometheus) || !/^https?:$/.test(new URL(flags.prometheus).protocol)) return `--prometheus: "${flags.prometheus}" is not an http(s) URL`;
  if (flags.cores !== undefined && !(flags.cores > 0)) return '--cores: must be more than 0';
  try {
    parsePromQueries(flags.promql ?? []);
  } catch (err) {
    return `--promql: ${(err as Error).message}`;
  }
  return null;
}

/**
 * --prometheus: the run's steps are in storage now, so the API reads their windows from the
 * Prometheus (it, not this process, makes the request: the same path serves any finished run).
 * Gaps are printed as warnings; a refusal (a host the API may not read, a query Prometheus cannot
 * parse, a token without write scope) is an error — the import itself stays stored.
 */
async function readPrometheus(api: string, runId: string, flags: ImportFlags, say: (m: string) => void): Promise<boolean> {
  try {
    const read = await callApi(
      ENDPOINTS.readPrometheusMetrics,
      { params: { id: runId }, body: { url: flags.prometheus!, queries: flags.promql ?? [], cores_available: flags.cores ?? null } },
      { baseUrl: api, token: flags.token, init: { signal: AbortSignal.timeout(300_000) } },
    );
    say(`server metrics from ${flags.prometheus}: ${read.levels.length} level${read.levels.length === 1 ? '' : 's'}, ${read.levels.reduce((n, l) => n + l.points, 0)} values`);
    for (const l of read.levels) for (const note of l.notes) process.stderr.write(`warning: --prometheus, level ${formatLevel(l.level)}: ${note}\n`);
    return true;
  } catch (err) {
    process.stderr.write(`error: --prometheus ${flags.prometheus}: the API did not read it (${(err as Error).message}); the import is stored\n`);
    return false;
  }
}

/** The curve as the API stores it, to show the stored counts beside the file's; null if the API cannot say. */
async function storedCurve(api: string, runId: string): Promise<RunDetail['curve'] | null> {
  try {
    return (await callApi(ENDPOINTS.getRun, { params: { id: runId } }, { baseUrl: api, init: { signal: AbortSignal.timeout(10_000) } })).curve;
  } catch (err) {
    if (err instanceof ApiHttpError) return null; // the API answered but will not say: no comparison column, no warning
    process.stderr.write(`warning: could not read the stored curve back (${(err as Error).message})\n`);
    return null;
  }
}

const ms = (v: number | null) => (v === null ? '–' : `${formatMs(v)} ms`);

function printReport(r: ImportResult, say: (m: string) => void, curve: RunDetail['curve'] | null): void {
  for (const f of r.files) {
    say(
      `${f.path}: ${f.events.toLocaleString('en-US')} requests, ${f.skipped.toLocaleString('en-US')} other lines skipped` +
        `${f.bad > 0 ? `, ${f.bad} BAD${f.truncated ? ' (the last line is cut off)' : ''}` : ''}`,
    );
    for (const b of f.badExamples) say(`  line ${b.line}: ${b.reason}: ${b.text}`);
  }
  if (r.levels.length > 0) {
    // Read from the file, then as stored (measured window only: --warmup trims the stored count).
    say('\n|    level | requests | errors |  window |   stored |      QPS |       p50 |       p99 |');
    say('|---------:|---------:|-------:|--------:|---------:|---------:|----------:|----------:|');
    for (const l of r.levels) {
      const p = curve?.find((c) => c.level === l.level);
      say(
        `| ${formatLevel(l.level).padStart(8)} | ${String(l.requests).padStart(8)} | ${String(l.errors).padStart(6)} | ${formatSeconds((l.ended_at - l.measure_from) / 1000).padStart(5)} s |` +
          ` ${String(p?.requests ?? '–').padStart(8)} | ${(p ? formatQps(p.qps) : '–').padStart(8)} | ${ms(p?.p50_ms ?? null).padStart(9)} | ${ms(p?.p99_ms ?? null).padStart(9)} |`,
      );
    }
  }
  const u = r.upload;
  say(
    `\n${r.how === 'done' ? 'nothing to do' : 'done'}: ${u.uploaded.toLocaleString('en-US')} requests uploaded in ${u.batches} batches` +
      `${u.duplicateBatches > 0 ? ` (${u.duplicateBatches} the API already had: stored once)` : ''} · ${r.runUrl}`,
  );
}
