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
import { openPrometheusReader } from './prometheus-cost.ts';
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
  /** A Prometheus server's base URL: read after each step with query_range (see prometheus-cost.ts). */
  prometheus?: string | undefined;
  /** `name=PromQL` queries besides the defaults (cpu, mem). */
  promql?: readonly string[] | undefined;
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
 * Per-second values of every selector over the scrapes. A counter's (rate) value at second t is its
 * increase from t−1 s to t — the counter read between scrapes as growing evenly (a reset counted as
 * a restart from 0) — so a level's values add up to exactly what it counted, however late the timer
 * ran a read; never across a gap (scrapes more than 1.5 intervals apart), never more than half an
 * interval beyond the first or last read. A gauge's value is its value at the scrape taken in that
 * second (the later of two).
 */
export function perSecondPoints(scrapes: readonly Scrape[], selectors: readonly Selector[], intervalMs = DEFAULT_INTERVAL_MS): ServerMetricPoint[] {
  const ok = scrapes.filter((s) => 'samples' in s).sort((a, b) => a.atMs - b.atMs);
  const bySecond = new Map<string, ServerMetricPoint>();
  const put = (sel: Selector, second: number, value: number | null) => {
    if (value !== null && Number.isFinite(value)) bySecond.set(`${sel.alias}\u0000${second}`, { metric: sel.alias, fn: sel.fn, second, value });
  };
  for (const sel of selectors) {
    if (sel.fn !== 'rate') {
      for (const b of ok) put(sel, Math.floor(b.atMs / 1000), evaluateSelector(sel, [b], { startMs: b.atMs, endMs: b.atMs }).value);
      continue;
    }
    for (const run of counterRuns(ok, sel, intervalMs)) {
      const edge = intervalMs / 2;
      for (let t = Math.ceil((run[0]!.t - edge) / 1000) + 1; t * 1000 <= run.at(-1)!.t + edge; t++) {
        const to = cumulativeAt(run, t * 1000, edge);
        const from = cumulativeAt(run, t * 1000 - 1000, edge);
        if (to !== null && from !== null) put(sel, t, to - from);
      }
    }
  }
  return [...bySecond.values()];
}

/** Runs of scrapes no further apart than a gap allows, each with the counter's increase since the run's first: `c` at `t`. */
function counterRuns(ok: ReadonlyArray<Scrape>, sel: Selector, intervalMs: number): Array<Array<{ t: number; c: number }>> {
  const runs: Array<Array<{ t: number; c: number }>> = [];
  let run: Array<{ t: number; c: number }> | null = null;
  for (let i = 1; i < ok.length; i++) {
    const a = ok[i - 1]!;
    const b = ok[i]!;
    const rate = b.atMs - a.atMs <= 1.5 * intervalMs ? evaluateSelector(sel, [a, b], { startMs: a.atMs, endMs: b.atMs }).value : null;
    if (rate === null || !Number.isFinite(rate) || b.atMs === a.atMs) {
      run = null;
      continue;
    }
    if (run === null) runs.push((run = [{ t: a.atMs, c: 0 }]));
    run.push({ t: b.atMs, c: run.at(-1)!.c + (rate * (b.atMs - a.atMs)) / 1000 });
  }
  return runs;
}

/** The counter's increase at `ms`, read linearly between the run's scrapes; up to `edge` beyond its ends at the end's own rate; else null. */
function cumulativeAt(run: ReadonlyArray<{ t: number; c: number }>, ms: number, edge: number): number | null {
  const first = run[0]!;
  const last = run.at(-1)!;
  if (ms < first.t - edge || ms > last.t + edge) return null;
  let i = run.findIndex((p) => p.t >= ms);
  if (i === -1) i = run.length - 1; // past the last read: the last pair's rate
  if (i === 0) i = 1; // before the first read: the first pair's rate
  const a = run[i - 1]!;
  const b = run[i]!;
  return a.c + ((b.c - a.c) * (ms - a.t)) / (b.t - a.t);
}

/**
 * What reads a finished step's server metrics: the sampler's seconds (a source read every second
 * during the sweep), or a Prometheus server asked afterwards.
 */
export interface StepReader {
  /** The flag and value, for messages. */
  flag: string;
  /** How long after a step's end its reading waits: for the sample after its end. */
  settleMs: number;
  batches(step: StepSpan): Promise<ServerMetricsBatchInput[]>;
  stop(): void;
}

/** Reads the source once a second while the sweep runs; hands each finished step its seconds. */
export class ServerSampler {
  readonly #scrapes: Scrape[] = [];
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #inFlight = false;

  constructor(
    readonly source: ServerSource,
    readonly intervalMs = DEFAULT_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#tick();
    this.#schedule();
  }

  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * The next read at the next whole interval of the clock (12:00:03.000, …), not `intervalMs` after
   * the last: each second's value is then the usage of that very second, so a level's values cover
   * its measured window to the timer's lateness rather than to an unknown phase of up to a second.
   */
  #schedule(): void {
    if (!this.#running) return;
    // 5 ms past the boundary: a timer due exactly on it may run a millisecond before it.
    this.#timer = setTimeout(() => {
      this.#tick();
      this.#schedule();
    }, this.intervalMs - (Date.now() % this.intervalMs) + 5);
    this.#timer.unref();
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
    const points = perSecondPoints(near, this.source.selectors, this.intervalMs).filter((p) => p.second * 1000 >= step.startedAt - 1000 && p.second * 1000 <= step.endedAt);
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

/** A sampler as a step reader: started now, a step's seconds taken from what it has read. */
export function samplerReader(sampler: ServerSampler): StepReader {
  sampler.start();
  return { flag: sampler.source.flag, settleMs: sampler.intervalMs * 1.2, batches: async (step) => sampler.stepBatches(step), stop: () => sampler.stop() };
}

export function sweepServerCost(reader: StepReader, warn: (m: string) => void): SweepServerCost {
  let current: StepSpan | null = null;
  const posts: Promise<void>[] = [];
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
          await sleep(reader.settleMs);
          const batches = await reader.batches(step);
          // The step's gaps and resets are stored with it; the person watching hears of them too.
          for (const note of batches[0]?.notes ?? []) warn(`${reader.flag}, level ${step.level}: ${note}`);
          for (const batch of batches) await post(batch);
        })().catch((err: unknown) => warn(`${reader.flag}: level ${step.level}'s server metrics were not stored (${(err as Error).message})`)),
      );
    },
    async close() {
      await Promise.all(posts);
      reader.stop();
    },
  };
}

/**
 * The source the sweep's flags name, checked before the run is created: an unreachable one fails the
 * sweep naming its flag (nothing sent yet). A cgroup's cpu.max gives the cores when --cores does not.
 */
export async function openServerCost(o: ServerSourceOptions, warn: (m: string) => void): Promise<{ cost: SweepServerCost } | { error: string } | null> {
  if (o.prometheus !== undefined) {
    const opened = await openPrometheusReader(o.prometheus, o.promql ?? [], o.cores ?? null, warn);
    return 'error' in opened ? opened : { cost: sweepServerCost(opened.reader, warn) };
  }
  const source = serverSourceOf(o);
  if (source === null) return null;
  if (source.kind === 'cgroup' && source.coresAvailable === null) source.coresAvailable = await cgroupCores(o.cgroup!);
  const problem = await checkServerSource(source, warn);
  if (problem !== null) return { error: problem };
  return { cost: sweepServerCost(samplerReader(new ServerSampler(source)), warn) };
}
