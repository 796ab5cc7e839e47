import { describeStorage } from '../config.ts';
import type { Db } from '../db.ts';
import { writeLedger, type LedgerEntry } from '../ingest/batch-ledger.ts';
import { DeferredWriter } from '../ingest/deferred-writer.ts';
import { insertEventBatch } from '../ingest/insert-events.ts';
import { queryRunChangeMarks } from '../queries/run-changes.ts';
import type { Arrival, EventStore, Recovered, StoreBatch } from './event-store.ts';
import { KnownBatchesStore } from './known-batches.ts';

/** How often the ledger is written: 4 inserts a second whatever the batch rate. */
const LEDGER_INTERVAL_MS = 250;
/** Written at once when this many rows wait (one insert stays small). */
const LEDGER_MAX_ROWS = 2_000;

const NO_ARRIVAL: Arrival = { release: () => undefined };

export interface ServerStoreOptions {
  /**
   * Batches other API replicas stored are read from the ledger this often. Default 30 s: shorter
   * than the table's deduplication window at full rate (10,000 batches ≈ 200 s at 1M events/s in
   * 20,000-event batches), so a replay is always caught by one or the other.
   */
  ledgerRefreshMs?: number;
  maxRuns?: number;
  /** Where a failed background write of the batch ledger is reported (it is retried). */
  onLedgerError: (err: unknown) => void;
}

/**
 * A ClickHouse server's store (one server or a cluster). Exactly once, in one module (see the
 * package README, "Storing batches exactly once"):
 * - The events go in as one Arrow insert per batch under the batch's deduplication token:
 *   ClickHouse itself drops a second copy, whichever API replica sends it, so nothing here needs
 *   a lock, and any number of inserts run at once.
 * - The batch ledger is written AFTER, in the background, a few inserts a second for all batches
 *   (`LEDGER_INTERVAL_MS`), not awaited: acknowledged means the events are stored. The ledger is
 *   what recognises a replay beyond the engine's deduplication window (10,000 batches) or in
 *   another process; a batch acknowledged in the last quarter second before a crash may miss its
 *   ledger row, but its agent holds an acknowledgement and will not resend it, and a copy sent
 *   anyway within the window is still dropped by the engine (stored once, answered as new).
 * - Other processes write too: the ledger is read again every `ledgerRefreshMs`, and live views
 *   learn of their batches from change marks. No crash recovery: an insert is one query here,
 *   which the server finishes or cancels whatever becomes of the API process.
 */
export class ServerEventStore extends KnownBatchesStore implements EventStore {
  readonly soleWriter = false;
  readonly live = null;
  readonly changeMarks: (runIds: string[]) => Promise<Map<string, string>>;
  readonly #ledger: DeferredWriter<LedgerEntry>;

  constructor(db: Db, options: ServerStoreOptions) {
    super(db, { ledgerRefreshMs: options.ledgerRefreshMs ?? 30_000, maxRuns: options.maxRuns ?? 1_000 });
    this.#ledger = new DeferredWriter((entries) => writeLedger(db, entries), { intervalMs: LEDGER_INTERVAL_MS, maxItems: LEDGER_MAX_ROWS, onError: options.onLedgerError });
    this.changeMarks = (runIds) => queryRunChangeMarks(db, runIds);
  }

  describe(): string {
    return describeStorage(this.db.config);
  }

  /** Inserts run side by side here: nothing waits for a batch on its way. */
  arriving(): Arrival {
    return NO_ARRIVAL;
  }

  recover(): Promise<Recovered[]> {
    return Promise.resolve([]);
  }

  flush(): Promise<void> {
    return this.#ledger.flush();
  }

  protected prepare(): Promise<void> {
    return Promise.resolve();
  }

  protected async write(batch: StoreBatch, hash: string): Promise<void> {
    batch.arrival?.release();
    await insertEventBatch(this.db, { runId: batch.runId, batchId: batch.batchId, agentId: batch.agentId, arrow: batch.arrow });
    this.#ledger.add({ run_id: batch.runId, batch_id: batch.batchId, agent_id: batch.agentId, events: batch.columns.length, content_hash: hash, received_at: batch.receivedAt });
  }
}
