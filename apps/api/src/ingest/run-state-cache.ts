import { getRunSpan, type Db, type RunSpan } from '@kneeboard/clickhouse';

/** What the write path keeps per run, so a batch needs no lookup in ClickHouse (the batches it knows are the store's). */
export interface RunState {
  span: RunSpan;
  spanAt: number;
}

export interface RunStateCacheOptions {
  /** Status and step span older than this are read again before use. Default 5 s. */
  spanTtlMs?: number;
  /** Runs kept; the least recently used beyond this are forgotten (and read again if they return). */
  maxRuns?: number;
}

/**
 * Per-run state of the write path, cached in this process: the run's status and step span (for the
 * lifecycle rules and event-time bounds). One ClickHouse round trip per run every few seconds, none
 * per batch.
 */
export class RunStateCache {
  readonly #runs = new Map<string, Promise<RunState | null>>();
  /** How old a cached span may be when a write is checked against it (a deletion elsewhere is seen within this). */
  readonly spanTtlMs: number;
  readonly #maxRuns: number;
  constructor(
    private readonly db: Db,
    options: RunStateCacheOptions = {},
  ) {
    this.spanTtlMs = options.spanTtlMs ?? 5_000;
    this.#maxRuns = options.maxRuns ?? 1_000;
  }

  /** The run's state, read or refreshed as needed; null when the run does not exist. `fresh` forces a re-read of the span. */
  async get(runId: string, { fresh = false, now = Date.now() } = {}): Promise<RunState | null> {
    let entry = this.#runs.get(runId);
    if (entry === undefined) {
      entry = this.#load(runId, now);
      this.#remember(runId, entry);
      // A run that does not exist is not kept: it may be created in a moment.
      void entry.then((s) => s === null && this.#runs.get(runId) === entry && this.#runs.delete(runId), () => this.#runs.delete(runId));
      return entry;
    }
    this.#remember(runId, entry);
    const state = await entry;
    if (state === null) return this.get(runId, { fresh, now });
    if (fresh || now - state.spanAt > this.spanTtlMs) {
      const span = await getRunSpan(this.db, runId);
      if (span === null) return null;
      state.span = span;
      state.spanAt = now;
    }
    return state;
  }

  /** The run was deleted: its next write reads storage again (and finds nothing). */
  forget(runId: string): void {
    this.#runs.delete(runId);
  }

  /** This process changed the run (a step, a finish): its next write sees the change without a re-read. */
  invalidate(runId: string): void {
    void this.#runs.get(runId)?.then((s) => {
      if (s) s.spanAt = 0;
    });
  }

  async #load(runId: string, now: number): Promise<RunState | null> {
    const span = await getRunSpan(this.db, runId);
    return span === null ? null : { span, spanAt: now };
  }

  #remember(runId: string, entry: Promise<RunState | null>): void {
    this.#runs.delete(runId);
    this.#runs.set(runId, entry);
    while (this.#runs.size > this.#maxRuns) {
      const oldest = this.#runs.keys().next().value as string;
      this.#runs.delete(oldest);
    }
  }
}
