import { listRuns, type Db } from '@kneeboard/clickhouse';
import { formatSlos, type CompareQuery, type CompareResponse, type RunDetail } from '@kneeboard/contracts';
import { HttpError } from '../errors.ts';
import { LIMIT_VARS, type Limits } from '../plugins/limits.ts';
import { buildComparison } from './compare.ts';
import { resolveCompareQuery, type ResolvedCompare } from './compare-refs.ts';
import { RUNS_SEARCHED } from './run-to-run-history.ts';
import { QueueFull, WorkQueue } from './work-queue.ts';

export type Comparison = { report: CompareResponse; details: RunDetail[] };
/** How the answer was had, sent as `x-kneeboard-compare` so a client (and a test) can tell. */
export type CompareSource = 'computed' | 'cached' | 'shared';

interface Entry {
  result: Comparison;
  /** The service's finished runs when it was computed: the run-to-run noise is read from them. */
  history: string;
}

/** Wait this long before retrying a refused comparison: about one comparison's time. */
const RETRY_AFTER_S = 5;

/** The same comparison however the query spelled it (case of ids, spaces, `min_effect=0.050`). */
export function compareKey(q: ResolvedCompare): string {
  const group = (ids: string[]) => ids.map((id) => id.toLowerCase()).join(',');
  return [`b=${group(q.base)}`, ...q.head.map((h) => `h=${group(h)}`), `e=${q.min_effect}`, ...(q.noise_asof === undefined ? [] : [`a=${q.noise_asof}`]), ...(q.slo && q.slo.length > 0 ? [`s=${formatSlos(q.slo)}`] : []), ...(q.name === undefined ? [] : [`n=${encodeURIComponent(q.name)}`])].join('&');
}

/**
 * The only way to a comparison: its cost is bounded, and it is computed once.
 * - Too many runs in one comparison: 400 naming the limit. (Heads and runs per group are capped
 *   by the contract; the bootstrap's resamples are fixed at the server, not chosen by the caller.)
 * - At most `compareConcurrency` computed at once, `compareQueue` waiting; beyond that a 429 with
 *   Retry-After, at once, rather than every caller waiting minutes and starving cheap reads.
 * - Identical comparisons arriving together share one computation.
 * - A comparison of runs that are finished past the late-data grace period cannot change, so it
 *   is kept (LRU) — but checked against the service's list of finished runs, whose repeats give
 *   the run-to-run noise, and dropped when one of its runs is written to or deleted here.
 */
export class CompareGuard {
  readonly queue: WorkQueue;
  readonly #cache = new Map<string, Entry>();
  readonly #inFlight = new Map<string, Promise<Comparison>>();

  constructor(
    private readonly db: Db,
    private readonly limits: Limits,
    private readonly lateDataGraceMs: number,
    private readonly compute: (db: Db, q: ResolvedCompare) => Promise<Comparison> = buildComparison,
  ) {
    this.queue = new WorkQueue(limits.compareConcurrency, limits.compareQueue);
  }

  /** A comparison as the URL wrote it: release sides become their runs first, so the cache keys on the runs compared. */
  async compareQuery(q: CompareQuery): Promise<{ result: Comparison; source: CompareSource }> {
    return this.compare(await resolveCompareQuery(this.db, q));
  }

  async compare(q: ResolvedCompare, now = Date.now()): Promise<{ result: Comparison; source: CompareSource }> {
    const runs = q.base.length + q.head.reduce((n, h) => n + h.length, 0);
    if (runs > this.limits.compareMaxRuns) {
      throw new HttpError(400, `${runs} runs in one comparison; at most ${this.limits.compareMaxRuns} (${LIMIT_VARS.compareMaxRuns})`, 'querystring.head');
    }
    const key = compareKey(q);
    const cached = this.#cache.get(key);
    if (cached) {
      if (cached.history === (await this.#history(cached.result))) {
        this.#cache.delete(key);
        this.#cache.set(key, cached); // most recently used last
        return { result: cached.result, source: 'cached' };
      }
      this.#cache.delete(key);
    }
    const shared = this.#inFlight.get(key);
    if (shared) return { result: await shared, source: 'shared' };
    const job = this.#computeAndKeep(key, q, now);
    this.#inFlight.set(key, job);
    try {
      return { result: await job, source: 'computed' };
    } finally {
      this.#inFlight.delete(key);
    }
  }

  /** A run was written to, finished or deleted: comparisons showing it are no longer final. */
  forget(runId: string): void {
    const id = runId.toLowerCase();
    for (const [key, entry] of this.#cache) {
      if (entry.result.details.some((d) => d.run.id.toLowerCase() === id)) this.#cache.delete(key);
    }
  }

  get cached(): number {
    return this.#cache.size;
  }

  async #computeAndKeep(key: string, q: ResolvedCompare, now: number): Promise<Comparison> {
    let result: Comparison;
    try {
      result = await this.queue.run(() => this.compute(this.db, q));
    } catch (err) {
      if (!(err instanceof QueueFull)) throw err;
      throw new HttpError(
        429,
        `too many comparisons: ${err.running} running (${LIMIT_VARS.compareConcurrency}=${this.limits.compareConcurrency}) and ${err.waiting} waiting (${LIMIT_VARS.compareQueue}=${this.limits.compareQueue}); try again in ${RETRY_AFTER_S} s`,
        'compare',
        undefined,
        RETRY_AFTER_S,
      );
    }
    if (this.limits.compareCacheEntries > 0 && this.#final(result, now)) {
      this.#cache.set(key, { result, history: await this.#history(result) });
      while (this.#cache.size > this.limits.compareCacheEntries) this.#cache.delete(this.#cache.keys().next().value as string);
    }
    return result;
  }

  /** Every run ended longer ago than the grace period in which a spooling agent may still add to it. */
  #final(result: Comparison, now: number): boolean {
    return result.details.every((d) => d.run.status !== 'running' && d.run.finished_at !== null && d.run.finished_at + this.lateDataGraceMs <= now);
  }

  /** The finished runs the run-to-run noise is read from (the same query, newest first). */
  async #history(result: Comparison): Promise<string> {
    const runs = await listRuns(this.db, { service: result.report.base.service, status: 'finished', limit: RUNS_SEARCHED });
    return runs.map((r) => r.id).join(',');
  }
}
