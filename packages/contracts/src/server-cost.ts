import { z } from 'zod';
import { IngestLevel, Level } from './common.ts';
import { LINE, plainLine } from './text.ts';

/**
 * What the server spent at each level (issue 28): the agent reads the target's CPU and memory
 * (its /metrics, /proc or a cgroup) every second of each step and posts them with the step; the
 * API answers each level's cost beside the curve.
 */

/** Where a run's server metrics come from: a Prometheus text endpoint, /proc/PID, a cgroup v2 directory, a Prometheus server's query_range. */
export const ServerMetricSource = z.enum(['metrics-url', 'process', 'cgroup', 'prometheus']);
export type ServerMetricSource = z.infer<typeof ServerMetricSource>;

/** How a stored value reads: a counter's increase per second, or a gauge's mean or max over the second. */
export const ServerMetricFn = z.enum(['rate', 'mean', 'max']);

/** A selector's alias, `cpu` in `cpu=rate(…)`: what the figures are named by. */
export const MetricAlias = z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a name such as cpu or mem').max(64);

/** The aliases the cost figures read: cores used (a rate of CPU-seconds) and peak memory (bytes). */
export const CPU_METRIC = 'cpu';
export const MEMORY_METRIC = 'mem';

/** Points in one post (about 200 KB, inside the API's default 256 KiB body): a long step or many metrics post in parts. */
export const MAX_SERVER_METRIC_POINTS = 3_000;
/** Distinct metrics in one post. */
export const MAX_SERVER_METRICS = 16;

/** What a run without server metrics says wherever its cost would be (page, embed, Markdown): the ways to read them. */
export const NO_SERVER_METRICS = 'No server metrics in this run: sweep with --metrics-url (the target’s /metrics), --prometheus, --target-pid or --cgroup to see what each level costs';
/** Epoch seconds between 2000-01-01 and 2100-01-01, like IngestEpochMs. */
const EpochSecond = z.number().int('must be a whole epoch second').min(946_684_800, 'must be an epoch second after 2000-01-01').max(4_102_444_800, 'must be an epoch second before 2100-01-01');

export const ServerMetricPoint = z.object({
  metric: MetricAlias,
  fn: ServerMetricFn,
  /** The epoch second the value belongs to: a rate's is the second its interval ends in. */
  second: EpochSecond,
  value: z.number().finite().min(-1e18).max(1e18),
});
export type ServerMetricPoint = z.infer<typeof ServerMetricPoint>;

/**
 * One step's server metrics, as the agent posts them once the step ends. Several posts for one
 * level replace each other second by second (the key is run, level, metric, second), so a retry or
 * a second agent reading the same source is stored once.
 */
export const ServerMetricsBatch = z
  .object({
    level: IngestLevel,
    source: ServerMetricSource,
    /** The cores the target may use, when the source knows (cgroup cpu.max) or `--cores` said; null otherwise. */
    cores_available: z.number().positive().max(100_000).nullable().default(null),
    /** Bounded by the route (413 past MAX_SERVER_METRIC_POINTS), not here. */
    points: z.array(ServerMetricPoint),
    /** What went wrong while reading: gaps and counter resets, one sentence each. */
    notes: z.array(z.string().max(300).superRefine(plainLine).meta(LINE)).max(20).default([]),
  })
  .superRefine((b, ctx) => {
    const metrics = new Map<string, string>();
    for (const [i, p] of b.points.entries()) {
      const fn = metrics.get(p.metric);
      if (fn !== undefined && fn !== p.fn) ctx.addIssue({ code: 'custom', path: ['points', i, 'fn'], message: `metric ${p.metric} is already ${fn} in this post` });
      metrics.set(p.metric, p.fn);
    }
    if (metrics.size > MAX_SERVER_METRICS) ctx.addIssue({ code: 'custom', path: ['points'], message: `at most ${MAX_SERVER_METRICS} metrics per post` });
  });
export type ServerMetricsBatch = z.infer<typeof ServerMetricsBatch>;
export type ServerMetricsBatchInput = z.input<typeof ServerMetricsBatch>;

/** One level's cost, over its measured window. Every figure is null where it cannot be known. */
export const LevelCost = z.object({
  level: Level,
  source: ServerMetricSource,
  /** CPU cores used: the mean of the per-second `cpu` rate over the measured window. */
  cores_used: z.number().nullable(),
  /** The cores the target may use, when known. */
  cores_available: z.number().nullable(),
  /** The highest `mem` value in the measured window, bytes. */
  peak_memory_bytes: z.number().nullable(),
  /** Throughput per core used: the level's QPS ÷ cores used. */
  qps_per_core: z.number().nullable(),
  /** CPU-seconds per 1,000 requests: cores used × window seconds ÷ requests × 1,000. */
  cpu_seconds_per_1k: z.number().nullable(),
  /** QPS per core here relative to the lowest measured level's (1 = every core as productive as at the start). */
  efficiency_per_core: z.number().nullable(),
  /** Seconds of `cpu` samples in the measured window. */
  seconds: z.number().int().nonnegative(),
  notes: z.array(z.string()),
});
export type LevelCost = z.infer<typeof LevelCost>;

/** A run's cost per level and what it says about the knee; `levels` is empty when nothing was read. */
export const RunCost = z.object({
  levels: z.array(LevelCost),
  /** "saturates at 8 with 7.8 of 8 cores busy: CPU-bound", or null without a knee or a CPU series. */
  verdict: z.string().nullable(),
  /** What the CPU bought from the lowest measured level to the highest: "threads 1 → 4: 2.14× the throughput for 4.6× the CPU …"; null with fewer than two. */
  scaling: z.string().nullable().default(null),
});
export type RunCost = z.infer<typeof RunCost>;

export const ServerMetricsResponse = z.object({ ok: z.literal(true), points: z.number().int().nonnegative() });

/** Queries one read of a Prometheus server may carry (the defaults' cpu and mem count among them). */
export const MAX_PROMQL_QUERIES = MAX_SERVER_METRICS;

/**
 * Read a run's server metrics from a Prometheus-compatible server (issue 28): for each finished step
 * the API evaluates every `name=PromQL` query with `query_range` over the step's window, a value a
 * second, and stores them as the agent's posts are stored. For an imported run, or any finished run.
 */
export const PrometheusReadBody = z.object({
  /** The server's base URL, `http://prom:9090` (a path prefix is kept). The API reads only hosts its allow-list names. */
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://prom:9090' })
    .max(2_000)
    .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'must not carry credentials')
    .refine((u) => !/[?#]/.test(u), 'must be a base URL, without a query or fragment'),
  /** `name=PromQL`, e.g. `cpu=sum(rate(process_cpu_seconds_total{job="search"}[15s]))`; cpu and mem default to every scraped target's process metrics. */
  queries: z.array(z.string().min(3).max(2_100).regex(/^[a-zA-Z_][a-zA-Z0-9_]*=/, 'must be name=PromQL, e.g. cpu=sum(rate(x[15s]))')).max(MAX_PROMQL_QUERIES).default([]),
  /** Only these levels (default: every finished step). */
  levels: z.array(Level).max(1_000).optional(),
  /** The cores the target may use, for the CPU verdict. */
  cores_available: z.number().positive().max(100_000).nullable().default(null),
});
export type PrometheusReadBody = z.infer<typeof PrometheusReadBody>;

export const PrometheusReadResponse = z.object({
  ok: z.literal(true),
  /** Per level read: the points stored and the gaps named (also stored with the step). */
  levels: z.array(z.object({ level: Level, points: z.number().int().nonnegative(), notes: z.array(z.string()) })),
});
export type PrometheusReadResponse = z.infer<typeof PrometheusReadResponse>;
