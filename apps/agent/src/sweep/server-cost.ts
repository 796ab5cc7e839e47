import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_SERVER_METRIC_POINTS, textProblem, type ServerMetricPoint, type ServerMetricsBatchInput, type ServerMetricSource } from '@kneeboard/contracts';
import {
  CGROUP_SELECTOR_TEXTS,
  DEFAULT_INTERVAL_MS,
  DEFAULT_SELECTOR_TEXTS,
  evaluateSelector,
  measureWindow,
  parseExposition,
  parseSelectors,
  scrapeCgroup,
  scrapeProcess,
  type Scrape,
  type Selector,
} from '@kneeboard/server-metrics';
import type { SweepReporter } from './reporter.ts';

/**
 * What the server spent during each step (issue 28): a timer in the CLI process reads the source
 * once a second for the whole sweep — the load engine's hot path is not touched — and when a step
 * ends its seconds are turned into per-second values (a counter's rate, a gauge's value) and posted
 * with the step, with every gap and counter reset named.
 */

/** Where the server's usage is read: the target's /metrics, a process on this host, or a cgroup v2 directory. */
export interface ServerSource {
  kind: ServerMetricSource;
  /** The flag and value, for messages: `--metrics-url http://…`. */
  flag: string;
  selectors: Selector[];
  /** The cores the target may use, when known (`--cores`, or the cgroup's cpu.max). */
  coresAvailable: number | null;
  scrape(): Promise<Scrape>;
}

export interface ServerSourceOptions {
  metricsUrl?: string | undefined;
  metric?: readonly string[] | undefined;
  targetPid?: number | undefined;
  cgroup?: string | undefined;
  cores?: number | undefined;
}

/** A scrape gives up well inside the interval, so a slow endpoint never stacks scrapes up. */
const SCRAPE_TIMEOUT_MS = 800;
/** The most of a /metrics body read: a cAdvisor page is ~1 MB. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Scrapes kept: an hour at one a second; a step's are taken when it ends, long before. */
const MAX_SCRAPES = 3_600;

/**
 * The source's own defaults (cpu, mem) plus `--metric` selectors; one with a default's alias
 * replaces it (`cpu=rate(container_cpu_usage_seconds_total{…})`). Throws a SelectorError naming a bad one.
 */
export function mergeSelectors(defaults: readonly string[], extra: readonly string[] = []): Selector[] {
  const given = parseSelectors(extra.length > 0 ? extra : [...defaults]);
  const aliases = new Set(given.map((s) => s.alias));
  return [...parseSelectors([...defaults]).filter((s) => !aliases.has(s.alias)), ...given];
}

/** The source the flags name, or null without one. Selectors are checked by the sweep's config (errors name --metric). */
export function serverSourceOf(o: ServerSourceOptions): ServerSource | null {
  if (o.metricsUrl !== undefined) {
    const url = o.metricsUrl;
    return { kind: 'metrics-url', flag: `--metrics-url ${url}`, selectors: mergeSelectors(DEFAULT_SELECTOR_TEXTS, o.metric), coresAvailable: o.cores ?? null, scrape: () => scrapeUrl(url) };
  }
  if (o.targetPid !== undefined) {
    const pid = o.targetPid;
    return { kind: 'process', flag: `--target-pid ${pid}`, selectors: mergeSelectors(DEFAULT_SELECTOR_TEXTS, o.metric), coresAvailable: o.cores ?? null, scrape: () => scrapeProcess(pid) };
  }
  if (o.cgroup !== undefined) {
    const dir = o.cgroup;
    return { kind: 'cgroup', flag: `--cgroup ${dir}`, selectors: mergeSelectors(CGROUP_SELECTOR_TEXTS, o.metric), coresAvailable: o.cores ?? null, scrape: () => scrapeCgroup(dir) };
  }
  return null;
}

/** One GET of a Prometheus text endpoint; every failure is a Scrape with its reason, never a throw. */
export async function scrapeUrl(url: string): Promise<Scrape> {
  const atMs = Date.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS), headers: { accept: 'text/plain;version=0.0.4' } });
    if (!res.ok) {
      await res.body?.cancel();
      return { atMs, error: `HTTP ${res.status}` };
    }
    const text = await res.text();
    if (text.length > MAX_BODY_BYTES) return { atMs, error: `a body over ${MAX_BODY_BYTES} bytes` };
    return { atMs, samples: parseExposition(text).samples };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { atMs, error: (err as Error).name === 'TimeoutError' ? `no answer within ${SCRAPE_TIMEOUT_MS} ms` : (cause?.code ?? cause?.message ?? (err as Error).message) };
  }
}

/**
 * The source must answer before the sweep starts: a typo in a URL or a pid found after ten minutes
 * of load is ten minutes wasted. Returns the message to fail with (naming the flag), or null; a
 * selector that matches nothing yet is only a warning (the series may appear under load).
 */
export async function checkServerSource(source: ServerSource, warn: (m: string) => void): Promise<string | null> {
  const scrape = await source.scrape();
  if ('error' in scrape) return `${source.flag}: cannot read it (${scrape.error})`;
  for (const s of source.selectors) {
    const v = evaluateSelector(s, [scrape], { startMs: scrape.atMs, endMs: scrape.atMs });
    if (v.points === 0) warn(`${source.flag}: no series matches ${s.source} yet; its figures stay empty unless it appears`);
  }
  return null;
}

/** cgroup v2 `cpu.max` ("200000 100000" → 2 cores; "max 100000" → null: no limit). */
export function parseCpuMax(text: string): number | null {
  const [quota, period] = text.trim().split(/\s+/);
  if (quota === undefined || quota === 'max' || period === undefined) return null;
  const cores = Number(quota) / Number(period);
  return Number.isFinite(cores) && cores > 0 ? cores : null;
}

/** The cores a cgroup may use, from its cpu.max; null when unlimited or unreadable. */
export async function cgroupCores(dir: string): Promise<number | null> {
  try {
    return parseCpuMax(await readFile(join(dir, 'cpu.max'), 'utf8'));
  } catch {
    return null; // cgroup v1, or a controller not enabled: the count is simply unknown
  }
}

/** A step's window: from its start (warm-up included) to its end; figures use the measured part. */
export interface StepSpan {
  level: number;
  startedAt: number;
  measureFrom: number;
  endedAt: number;
}

/**
 * Per-second values of every selector over the scrapes: a rate between each pair of consecutive
 * scrapes (a counter reset counted as a restart from 0), a gauge's value at each scrape; each
 * belongs to the epoch second its scrape was taken in.
 */
export function perSecondPoints(scrapes: readonly Scrape[], selectors: readonly Selector[]): ServerMetricPoint[] {
  const ok = scrapes.filter((s) => 'samples' in s).sort((a, b) => a.atMs - b.atMs);
  const bySecond = new Map<string, ServerMetricPoint>();
  for (const sel of selectors) {
    for (let i = 0; i < ok.length; i++) {
      const b = ok[i]!;
      let value: number | null;
      if (sel.fn === 'rate') {
        if (i === 0) continue;
        const a = ok[i - 1]!;
        value = evaluateSelector(sel, [a, b], { startMs: a.atMs, endMs: b.atMs }).value;
      } else value = evaluateSelector(sel, [b], { startMs: b.atMs, endMs: b.atMs }).value;
      if (value === null || !Number.isFinite(value)) continue;
      const second = Math.floor(b.atMs / 1000);
      // Two scrapes in one second (timer jitter): the later one stands for it.
      bySecond.set(`${sel.alias}\u0000${second}`, { metric: sel.alias, fn: sel.fn, second, value });
    }
  }
  return [...bySecond.values()];
}

/** Reads the source once a second while the sweep runs; hands each finished step its seconds. */
export class ServerSampler {
  readonly #scrapes: Scrape[] = [];
  #timer: NodeJS.Timeout | undefined;
  #inFlight = false;

  constructor(
    readonly source: ServerSource,
    readonly intervalMs = DEFAULT_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.#timer) return;
    this.#tick();
    this.#timer = setInterval(() => this.#tick(), this.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    // A scrape still running (a slow endpoint) is not doubled: the gap it leaves is named instead.
    if (this.#inFlight) return;
    this.#inFlight = true;
    void this.source
      .scrape()
      .then((s) => {
        this.#scrapes.push(s);
        if (this.#scrapes.length > MAX_SCRAPES) this.#scrapes.splice(0, this.#scrapes.length - MAX_SCRAPES);
      })
      .finally(() => {
        this.#inFlight = false;
      });
  }

  /** Scrapes taken so far (for tests and the step's figures). */
  get scrapes(): readonly Scrape[] {
    return this.#scrapes;
  }

  /**
   * A finished step's posts (several when its points exceed one post): its seconds from start to
   * end — one scrape either side, so its first and last seconds have a rate — and, over the
   * measured window, the gaps and resets as notes.
   */
  stepBatches(step: StepSpan): ServerMetricsBatchInput[] {
    const slack = this.intervalMs * 1.5;
    const near = this.#scrapes.filter((s) => s.atMs >= step.startedAt - slack && s.atMs <= step.endedAt + slack);
    const points = perSecondPoints(near, this.source.selectors).filter((p) => p.second * 1000 >= step.startedAt - 1000 && p.second * 1000 <= step.endedAt);
    const notes = measureWindow(near, { startMs: step.measureFrom, endMs: step.endedAt }, this.source.selectors, { intervalMs: this.intervalMs }).messages.slice(0, 20).filter((m) => textProblem(m) === null).map((m) => m.slice(0, 300));
    const batches: ServerMetricsBatchInput[] = [];
    for (let i = 0; i === 0 || i < points.length; i += MAX_SERVER_METRIC_POINTS) {
      batches.push({ level: step.level, source: this.source.kind, cores_available: this.source.coresAvailable, points: points.slice(i, i + MAX_SERVER_METRIC_POINTS), notes: i === 0 ? notes : [] });
    }
    return batches;
  }
}

/** The sweep's side of it: started before any load, posting each step's seconds as it ends. */
export interface SweepServerCost {
  /** Wraps the reporter to learn each step's window as it starts. */
  watch(reporter: SweepReporter): SweepReporter;
  /** After a step: its seconds are posted once the scrape after its end is in (not awaited: the next step starts now). */
  stepEnded(post: (batch: ServerMetricsBatchInput) => Promise<void>): void;
  /** The same for a step whose window is known otherwise (a fleet plan's step, settled). */
  postStep(step: StepSpan, post: (batch: ServerMetricsBatchInput) => Promise<void>): void;
  /** Stops reading and waits for every post. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function sweepServerCost(sampler: ServerSampler, warn: (m: string) => void): SweepServerCost {
  let current: StepSpan | null = null;
  const posts: Promise<void>[] = [];
  sampler.start();
  return {
    watch(reporter) {
      return {
        ...reporter,
        stepStarted: (s) => {
          current = { level: s.level, startedAt: s.started_at, measureFrom: s.measure_from, endedAt: s.ends_at };
          reporter.stepStarted?.(s);
        },
      };
    },
    stepEnded(post) {
      if (current === null) return;
      // A step stopped early (Ctrl-C) ends now, not at its planned end.
      const step = { ...current, endedAt: Math.min(current.endedAt, Date.now()) };
      current = null;
      this.postStep(step, post);
    },
    postStep(step, post) {
      posts.push(
        (async () => {
          await sleep(sampler.intervalMs * 1.2);
          const batches = sampler.stepBatches(step);
          // The step's gaps and resets are stored with it; the person watching hears of them too.
          for (const note of batches[0]?.notes ?? []) warn(`${sampler.source.flag}, level ${step.level}: ${note}`);
          for (const batch of batches) await post(batch);
        })().catch((err: unknown) => warn(`${sampler.source.flag}: level ${step.level}'s server metrics were not stored (${(err as Error).message})`)),
      );
    },
    async close() {
      await Promise.all(posts);
      sampler.stop();
    },
  };
}

/**
 * The source the sweep's flags name, checked before the run is created: an unreachable one fails the
 * sweep naming its flag (nothing sent yet). A cgroup's cpu.max gives the cores when --cores does not.
 */
export async function openServerCost(o: ServerSourceOptions, warn: (m: string) => void): Promise<{ cost: SweepServerCost } | { error: string } | null> {
  const source = serverSourceOf(o);
  if (source === null) return null;
  if (source.kind === 'cgroup' && source.coresAvailable === null) source.coresAvailable = await cgroupCores(o.cgroup!);
  const problem = await checkServerSource(source, warn);
  if (problem !== null) return { error: problem };
  return { cost: sweepServerCost(new ServerSampler(source), warn) };
}
