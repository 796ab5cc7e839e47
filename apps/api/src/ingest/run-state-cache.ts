import { getRunSpan, readLedger, type Db, type RunSpan } from '@kneeboard/clickhouse';
import { CrashRecovery } from './crash-recovery.ts';

/** A batch this process knows is stored: enough to tell a replay (same content) from a reused id. */
export interface KnownBatch {
  contentHash: string;
  events: number;
}

/** What the write path keeps per run, so a batch needs no lookup in ClickHouse. */
export interface RunState {
  span: RunSpan;
  spanAt: number;
  batches: Map<string, KnownBatch>;
  /** received_at of the newest ledger row read, and when the ledger was last read. */
  ledgerUpTo: number;
  ledgerAt: number;
}

export interface RunStateCacheOptions {
  /** Status and step span older than this are read again before use. Default 5 s. */
  spanTtlMs?: number;
  /**
   * Batches other API replicas stored are read from the ledger this often. Default 30 s: shorter
   * than the table's deduplication window at full rate (10,000 batches ≈ 200 s at 1M events/s in
   * 20,000-event batches), so a replay is always caught by one or the other.
   */
  ledgerRefreshMs?: number;
  /** Runs kept; the least recently used beyond this are forgotten (and read again if they return). */
  maxRuns?: number;
}

/** Ledger rows of other replicas may carry their clocks: read back a little before the newest seen. */
const LEDGER_OVERLAP_MS = 60_000;

/**
 * Per-run state of the write path, cached in this process: the run's status and step span (for the
 * lifecycle rules and event-time bounds) and the batches known to be stored (from this process's
 * own writes and the shared ledger). One ClickHouse round trip per run every few seconds, none per
 * batch. Correctness across replicas does not rest on it — the insert's deduplication token does
 * that — it only lets this process answer `duplicate`/409 without asking.
 */
export class RunStateCache {
  readonly #runs = new Map<string, Promise<RunState | null>>();
  /** How old a cached span may be when a write is checked against it (a deletion elsewhere is seen within this). */
  readonly spanTtlMs: number;
  readonly #ledgerRefreshMs: number;
  readonly #maxRuns: number;
  constructor(
    private readonly db: Db,
    options: RunStateCacheOptions = {},
    /** Puts right what a crashed process left of a run, before this process writes to it. */
    private readonly recovery = new CrashRecovery(db),
  ) {
    this.spanTtlMs = options.spanTtlMs ?? 5_000;
    this.#ledgerRefreshMs = options.ledgerRefreshMs ?? 30_000;
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
    // Embedded, this process is the only writer: the ledger holds nothing it does not know.
    if (this.db.config.mode !== 'embedded' && now - state.ledgerAt > this.#ledgerRefreshMs) await this.#readLedger(runId, state, now);
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
    if (span === null) return null;
    // Embedded: a process that died mid-insert may have left ledger rows naming events that are not
    // there, or a rollup short of the raw rows. Put right before this process writes to the run.
    await this.recovery.run(runId);
    const state: RunState = { span, spanAt: now, batches: new Map(), ledgerUpTo: 0, ledgerAt: 0 };
    await this.#readLedger(runId, state, now);
    return state;
  }

  async #readLedger(runId: string, state: RunState, now: number): Promise<void> {
    const rows = await readLedger(this.db, runId, Math.max(0, state.ledgerUpTo - LEDGER_OVERLAP_MS));
    for (const r of rows) {
      if (!state.batches.has(r.batch_id)) state.batches.set(r.batch_id, { contentHash: r.content_hash, events: r.events });
      state.ledgerUpTo = Math.max(state.ledgerUpTo, r.received_at);
    }
    state.ledgerAt = now;
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
