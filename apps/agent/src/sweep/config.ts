import { availableParallelism, hostname } from 'node:os';
import { z } from 'zod';
import { CreateRunBody, DEFAULT_API_URL, DEFAULT_WEB_URL, MAX_BATCH_EVENTS, parseSlos } from '@kneeboard/contracts';
import { DEFAULT_RETRY_POLICY, DEFAULT_SPOOL_DIR, HTTP_TOKEN } from '@kneeboard/agent-sdk';
import { DEFAULT_SELECTOR_TEXTS, parsePromQueries } from '@kneeboard/server-metrics';
import { mergeSelectors } from './server-cost.ts';
import { mixOriginProblem, type RequestMix } from '../mix/request-mix.ts';

/** Concurrency above this is refused as a typo; the real bound is the open-file limit, checked at start. */
export const MAX_CONCURRENCY = 100_000;
export const MAX_RATE = 1_000_000;
export const DEFAULT_MAX_CONNECTIONS = 10_000;
/** A closed sweep's levels when none are given (the CLI without -c/--levels/--rate). */
export const DEFAULT_CLOSED_LEVELS = [1, 2, 4, 8, 16];

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
const noRepeats = (xs: number[]) => new Set(xs).size === xs.length;
const REPEAT = 'must not repeat a level (its later window would replace the earlier one)';

const Concurrency = z.number().int('must be whole numbers (concurrency)').min(1, 'must be at least 1').max(MAX_CONCURRENCY, `must be at most ${MAX_CONCURRENCY}`);
const Rate = z.number().positive('must be more than 0 requests/s').max(MAX_RATE, `must be at most ${MAX_RATE} requests/s`);

/**
 * Every setting of a sweep, with its default: the one home of both. The CLI's flags set these
 * fields and show these defaults in --help (cli/sweep-flags.ts), giving no defaults of their own.
 */
export const SweepFields = z
  .object({
    target: HttpUrl,
    /** closed: fixed concurrency (wrk); open: fixed arrival rate, latency from the intended send time (wrk2). */
    loadModel: z.enum(['closed', 'open']).default('closed'),
    /** The swept values: concurrency, rate, or — with `parameter` and `hold` — the knob's values. */
    levels: z.array(z.number().positive('must be more than 0')).min(1, 'needs at least one level').refine(noRepeats, REPEAT),
    /** The swept knob's name when it is not the load itself, e.g. `workers`. */
    parameter: z.string().trim().min(1).max(100).regex(/^[\w.-]+$/, 'must be a name such as workers').optional(),
    /** The load held at every level of a `parameter` sweep: concurrency (closed) or requests/s (open). */
    hold: z.number().positive().optional(),
    durationMs: z.number().positive('must be longer than 0').default(10_000),
    /** The unmeasured start of each level. */
    warmupMs: z.number().nonnegative().default(2_000),
    arrivals: z.enum(['uniform', 'poisson']).default('uniform'),
    thinkTimeMs: z.number().nonnegative().default(0),
    /** Connections to the target, at most: the open loop's bound; below the concurrency it starves a closed loop (for tests). */
    maxConnections: z.number().int().min(1).max(MAX_CONCURRENCY).default(DEFAULT_MAX_CONNECTIONS),
    /** Which engine sends the requests: `auto` is the native one when it is built and the target is http. */
    /**
     * Sweeps of one release run together, levels interleaved (level 1 of every repeat, then level 2…)
     * so drift on the box hits all of them: the comparison measures run-to-run noise from them.
     */
    repeat: z.number().int('must be a whole number').min(1, 'must be at least 1').max(10, 'must be at most 10').default(1),
    /** At the end, add levels inside the knee's bracket (where the grid is coarse) and measure them too. */
    refine: z.boolean().default(false),
    /** SLO clauses (`p99<=50ms`, `errors<=1%`), read by the contracts' parseSlos: `--search` finds the capacity under them. */
    slo: z.array(z.string()).optional(),
    /** Search for the capacity under `slo` instead of walking `levels`: the first level is where it starts. */
    search: z.boolean().default(false),
    /** `--search` narrows the bracket to this share of its lower end. */
    precision: z.number().gt(0, 'must be more than 0').max(0.5, 'must be at most 50%').default(0.05),
    /** `--search` runs at most this many levels at or past the first that breaks an SLO. */
    maxOver: z.number().int('must be a whole number').min(1, 'must be at least 1').max(5, 'must be at most 5').default(1),
    engine: z.enum(['auto', 'node', 'native']).default('auto'),
    /** https:// targets: accept any certificate (self-signed, another name); the CLI warns. */
    insecure: z.boolean().default(false),
    /** https:// targets: a PEM file of certificates trusted besides the system's roots. */
    caFile: z.string().min(1).optional(),
    /**
     * Native engine: which HTTP. `2` is HTTP/2 (prior knowledge over http://, ALPN h2 over https://);
     * `auto` offers h2 and http/1.1 by ALPN and uses the server's pick (http:// stays HTTP/1.1).
     */
    http: z.enum(['1.1', '2', 'auto']).default('1.1'),
    /** HTTP/2: the connections the level's streams are spread over (default: as few as the server's stream limit allows). */
    connections: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_CONCURRENCY, `must be at most ${MAX_CONCURRENCY}`).optional(),
    /** Native engine: worker threads (default: the cores this process may use). */
    threads: z.number().int('must be a whole number').min(1, 'must be at least 1').max(1024, 'must be at most 1024').optional(),
    /** Native engine: the binary (default: apps/agent/engine/target/release/kneeboard-engine). */
    engineBinary: z.string().min(1).optional(),
    /** Shell command run before each level, `{level}` replaced by the level. */
    beforeLevel: z.string().min(1).optional(),
    readyUrl: HttpUrl.optional(),
    readyTimeoutMs: z.number().positive().default(60_000),
    /** What the server spends (issue 28), read every second of each step from one of: its Prometheus text endpoint… */
    metricsUrl: HttpUrl.optional(),
    /** …a process on this host (/proc/PID)… */
    targetPid: z.number().int('must be a process id').positive('must be a process id').optional(),
    /** …or a cgroup v2 directory on this host. */
    cgroup: z.string().min(1).optional(),
    /** Selectors `alias=fn(metric{label="v"})` besides the defaults (cpu, mem): see packages/server-metrics. */
    metric: z.array(z.string()).optional(),
    /** …or a Prometheus server, asked after each step for its window (query_range)… */
    prometheus: HttpUrl.optional(),
    /** …with these `name=PromQL` queries besides the defaults (cpu, mem). */
    promql: z.array(z.string()).optional(),
    /** The cores the target may use, for the CPU verdict (a cgroup's cpu.max says it by itself). */
    cores: z.number().positive('must be more than 0').max(100_000).optional(),
    run: CreateRunBody.pick({ service: true, name: true, release: true, git_sha: true, tags: true }),
    request: z
      .object({
        /** Default GET, or POST when there is a body. */
        method: z.string().regex(HTTP_TOKEN, 'must be an HTTP method such as GET or POST').optional(),
        /** Overrides the target URL's path and query. */
        path: z.string().startsWith('/', 'must start with /').optional(),
        headers: z.record(z.string().regex(HTTP_TOKEN, 'header names must be HTTP tokens'), z.string()).default({}),
        body: z.union([z.string(), z.instanceof(Buffer)]).optional(),
        timeoutMs: z.number().positive().default(30_000),
      })
      .prefault({}),
    /** `--requests mix.json|file.har`: a weighted mix of requests instead of the one request (loaded and checked by the flag). */
    requests: z.custom<RequestMix>((v) => typeof v === 'object' && v !== null && Array.isArray((v as RequestMix).requests), 'must be a request mix (--requests FILE)').optional(),
    serverTiming: z
      .object({ compute: z.array(z.string().regex(HTTP_TOKEN)).min(1).default(['compute']), queue: z.array(z.string().regex(HTTP_TOKEN)).min(1).default(['queue']) })
      .prefault({}),
    api: HttpUrl.default(DEFAULT_API_URL),
    web: HttpUrl.default(DEFAULT_WEB_URL),
    /** The API token (an ingest token is enough); none on an API open on loopback. */
    token: z.string().regex(/^\S+$/, 'must be a token, without spaces').optional(),
    agentId: z.string().min(1).max(128).default(() => `${hostname()}-${process.pid}`.slice(0, 128)),
    /** null keeps unsent calls in memory only. */
    spoolDir: z.string().min(1).nullable().default(DEFAULT_SPOOL_DIR),
    flushIntervalMs: z.number().positive().default(500),
    maxBatchEvents: z.number().int().min(1).max(MAX_BATCH_EVENTS).default(20_000),
    /** How long the finished sweep waits for the API before leaving the rest in the spool. */
    deliveryTimeoutMs: z.number().nonnegative().default(30_000),
    retry: z
      .object({ initialDelayMs: z.number().nonnegative(), maxDelayMs: z.number().nonnegative(), giveUpAfterMs: z.number().nonnegative() })
      .default(DEFAULT_RETRY_POLICY),
  });

/** What a sweep needs. Everything but target, levels and the run's service/release has a default. */
export const SweepConfig = SweepFields
  .superRefine((c, ctx) => {
    if (c.parameter !== undefined && c.hold === undefined) {
      ctx.addIssue({ code: 'custom', path: ['hold'], message: `a ${c.parameter} sweep needs the load to hold: one concurrency or one rate` });
    }
    if (c.parameter !== undefined && c.beforeLevel === undefined) {
      ctx.addIssue({ code: 'custom', path: ['beforeLevel'], message: `a ${c.parameter} sweep needs a command that sets ${c.parameter} before each level` });
    }
    if (c.parameter === undefined && c.hold !== undefined) ctx.addIssue({ code: 'custom', path: ['parameter'], message: 'a held load needs the swept parameter named' });
    if (c.slo !== undefined) {
      const parsed = parseSlos(c.slo);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', path: ['slo'], message: parsed.error });
    }
    if (c.search && c.slo === undefined) ctx.addIssue({ code: 'custom', path: ['search'], message: 'needs --slo: the search finds the capacity under an SLO' });
    if (c.search && c.refine) ctx.addIssue({ code: 'custom', path: ['refine'], message: 'cannot be combined with --search (the search places its own levels)' });
    const serverSources = [c.metricsUrl, c.targetPid, c.cgroup, c.prometheus].filter((s) => s !== undefined).length;
    if (serverSources > 1) ctx.addIssue({ code: 'custom', path: ['metricsUrl'], message: 'give one of --metrics-url, --target-pid, --cgroup, --prometheus (one source per run)' });
    if (serverSources === 0 && (c.metric !== undefined || c.cores !== undefined)) ctx.addIssue({ code: 'custom', path: [c.metric !== undefined ? 'metric' : 'cores'], message: 'needs a source: --metrics-url, --target-pid, --cgroup or --prometheus' });
    if (c.promql !== undefined && c.prometheus === undefined) ctx.addIssue({ code: 'custom', path: ['promql'], message: 'needs --prometheus (the server the queries go to)' });
    if (c.prometheus !== undefined && c.metric !== undefined) ctx.addIssue({ code: 'custom', path: ['metric'], message: 'reads a /metrics text endpoint; with --prometheus give --promql name=PromQL' });
    if (c.promql !== undefined) {
      try {
        parsePromQueries(c.promql);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['promql'], message: (err as Error).message });
      }
    }
    if (c.metric !== undefined) {
      try {
        mergeSelectors(DEFAULT_SELECTOR_TEXTS, c.metric);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['metric'], message: (err as Error).message });
      }
    }
    if (c.engine === 'node' && c.threads !== undefined) ctx.addIssue({ code: 'custom', path: ['threads'], message: 'needs the native engine (the Node engine is one thread)' });
    if (c.engine === 'node' && c.http !== '1.1') ctx.addIssue({ code: 'custom', path: ['http'], message: 'needs the native engine (the Node engine speaks HTTP/1.1 only)' });
    if (c.connections !== undefined && c.http === '1.1') ctx.addIssue({ code: 'custom', path: ['connections'], message: 'needs --http2 or --http auto (HTTP/1.1 opens one connection per request in flight)' });
    if (c.requests !== undefined) {
      const problem = URL.canParse(c.target) ? mixOriginProblem(c.requests, new URL(c.target)) : null;
      if (problem) ctx.addIssue({ code: 'custom', path: ['requests'], message: problem });
    }
    const loads = c.hold === undefined ? c.levels : [c.hold];
    const schema = c.loadModel === 'closed' ? Concurrency : Rate;
    for (const [i, load] of loads.entries()) {
      const r = schema.safeParse(load);
      if (!r.success) ctx.addIssue({ code: 'custom', path: c.hold === undefined ? ['levels', i] : ['hold'], message: r.error.issues[0]!.message });
    }
  })
  .transform((c) => ({
    ...c,
    parameter: c.parameter ?? (c.loadModel === 'closed' ? 'concurrency' : 'rate'),
    request: { ...c.request, method: (c.request.method ?? (c.request.body === undefined ? 'GET' : 'POST')).toUpperCase() },
    /** The SLO clauses, parsed (valid here: the refinement above refused any other). */
    slos: c.slo === undefined ? [] : (parseSlos(c.slo) as Extract<ReturnType<typeof parseSlos>, { ok: true }>).clauses,
    agentHost: hostname(),
    agentCores: availableParallelism(),
  }));

export type SweepInput = z.input<typeof SweepConfig>;
export type SweepConfig = z.output<typeof SweepConfig>;

/** The load at a level: the level itself, or the held load of a parameter sweep. */
export const loadAt = (cfg: SweepConfig, level: number): number => cfg.hold ?? level;
