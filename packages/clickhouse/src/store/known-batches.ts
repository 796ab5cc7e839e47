import { createHash } from 'node:crypto';
import type { Db } from '../db.ts';
import { readLedger } from '../ingest/batch-ledger.ts';
import { BatchIdReused, type BatchColumns, type ChangeListener, type StoreBatch, type StoreOutcome } from './event-store.ts';

/** A batch this process knows is stored: enough to tell a replay (same content) from a reused id. */
interface KnownBatch {
  contentHash: string;
  events: number;
}

interface RunBatches {
  batches: Map<string, KnownBatch>;
  /** received_at of the newest ledger row read, and when the ledger was last read. */
  ledgerUpTo: number;
  ledgerAt: number;
}

/** The batch's identity for "same id, same events?": its agent and its column values, however they were encoded. */
export function contentHash(agentId: string, c: BatchColumns): string {
  const hash = createHash('sha1').update(agentId).update('\0');
  for (const a of [c.level, c.ts_ms, c.latency_ms, c.compute_ms, c.queue_ms, c.status]) hash.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  return hash.digest('base64url');
}

/** Ledger rows of other replicas may carry their clocks: read back a little before the newest seen. */
const LEDGER_OVERLAP_MS = 60_000;

export interface KnownBatchesOptions {
  /** Read the ledger again this often for batches other processes stored; Infinity where none can. */
  ledgerRefreshMs: number;
  /** Runs kept; the least recently used beyond this are forgotten (and read again if they return). */
  maxRuns: number;
}

/**
 * What both stores share of "exactly once": the batches this process knows are stored, per run
 * (its own writes, and the ledger read once per run and, where other processes write, again every
 * `ledgerRefreshMs`), so a replay is answered `duplicate` and a reused id refused with no lookup
 * per batch; a copy arriving while the first is written waits for its outcome. How a new batch is
 * written — and so what makes it exactly once in storage — is each store's own (`write`).
 */
export abstract class KnownBatchesStore {
  readonly #runs = new Map<string, Promise<RunBatches>>();
  /** Batches being written right now, so a copy arriving meanwhile waits for the first. */
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #listeners = new Set<ChangeListener>();

  constructor(
    protected readonly db: Db,
    private readonly known: KnownBatchesOptions,
  ) {}

  /** Before this process's first write to a run (the embedded engine's crash recovery). */
  protected abstract prepare(runId: string): Promise<void>;
  /** Writes a new batch durably, exactly once in storage. */
  protected abstract write(batch: StoreBatch, hash: string): Promise<void>;

  onChange(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async store(batch: StoreBatch): Promise<StoreOutcome> {
    const hash = contentHash(batch.agentId, batch.columns);
    const run = await this.#run(batch.runId, batch.receivedAt);
    const key = `${batch.runId}:${batch.batchId}`;
    for (;;) {
      const known = run.batches.get(batch.batchId);
      if (known) {
        if (known.contentHash !== '' && known.contentHash !== hash) throw new BatchIdReused(batch.batchId);
        return 'duplicate';
      }
      const pending = this.#inFlight.get(key);
      if (pending === undefined) break;
      // The same batch is being written: its outcome is ours (stored → duplicate; failed → try again).
      // Not a batch on its way to the group commit meanwhile: the group it waits for must not wait for it.
      batch.arrival?.release();
      await pending.catch(() => undefined);
    }
    const write = this.write(batch, hash).catch((err: unknown) => {
      // Not stored. Its ledger row, written first, may have been read back meanwhile: forget it, or
      // the copy sent again would be taken for a duplicate of events that are not there.
      run.batches.delete(batch.batchId);
      throw err;
    });
    this.#inFlight.set(key, write);
    try {
      await write;
    } finally {
      this.#inFlight.delete(key);
    }
    run.batches.set(batch.batchId, { contentHash: hash, events: batch.columns.length });
    for (const listener of this.#listeners) listener(batch.runId);
    return 'stored';
  }

  async settle(runId: string): Promise<void> {
    const prefix = `${runId}:`;
    await Promise.all([...this.#inFlight].filter(([key]) => key.startsWith(prefix)).map(([, write]) => write.catch(() => undefined)));
  }

  forget(runId: string): void {
    this.#runs.delete(runId);
  }

  async #run(runId: string, now: number): Promise<RunBatches> {
    let entry = this.#runs.get(runId);
    if (entry === undefined) {
      entry = this.#load(runId, now);
      entry.catch(() => this.#runs.get(runId) === entry && this.#runs.delete(runId));
    }
    this.#remember(runId, entry);
    const run = await entry;
    if (now - run.ledgerAt > this.known.ledgerRefreshMs) await this.#readLedger(runId, run, now);
    return run;
  }

  async #load(runId: string, now: number): Promise<RunBatches> {
    await this.prepare(runId);
    const run: RunBatches = { batches: new Map(), ledgerUpTo: 0, ledgerAt: 0 };
    await this.#readLedger(runId, run, now);
    return run;
  }

  async #readLedger(runId: string, run: RunBatches, now: number): Promise<void> {
    const rows = await readLedger(this.db, runId, Math.max(0, run.ledgerUpTo - LEDGER_OVERLAP_MS));
    for (const r of rows) {
      if (!run.batches.has(r.batch_id)) run.batches.set(r.batch_id, { contentHash: r.content_hash, events: r.events });
      run.ledgerUpTo = Math.max(run.ledgerUpTo, r.received_at);
    }
    run.ledgerAt = now;
  }

  #remember(runId: string, entry: Promise<RunBatches>): void {
    this.#runs.delete(runId);
    this.#runs.set(runId, entry);
    while (this.#runs.size > this.known.maxRuns) {
      const oldest = this.#runs.keys().next().value as string;
      this.#runs.delete(oldest);
    }
  }
}
