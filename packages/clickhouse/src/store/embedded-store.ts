import { describeStorage } from '../config.ts';
import type { Db } from '../db.ts';
import { CrashRecovery } from './crash-recovery.ts';
import type { Arrival, EventStore, Recovered, StoreBatch } from './event-store.ts';
import { GroupCommit } from './group-commit.ts';
import { KnownBatchesStore } from './known-batches.ts';
import { LiveFiguresMemory } from './live-figures.ts';

/** The embedded engine's largest coalesced insert: a dozen 20,000-event batches (~10 MB of Arrow). */
const GROUP_MAX_ROWS = 250_000;
/** At most this long does a group wait for its usual number of batches (the live chart's lag budget is 1 s). */
const GROUP_LINGER_MS = 10;

/**
 * The embedded engine's store. Exactly once, in one module (see the package README, "Storing
 * batches exactly once"):
 * - This process is the only writer of its data directory, so what it knows (known-batches.ts:
 *   its own writes and the ledger read once per run) is all there is: no re-read, no change marks.
 * - Batches go through GroupCommit: those that arrive while an insert runs go in together as the
 *   next one, each batch's ledger row written FIRST under the group's token, the events after, and
 *   a batch is acknowledged only once both are. The engine deduplicates a group as a whole, so a
 *   replay is always found in the ledger.
 * - A process killed between the two writes leaves ledger rows naming events that are not there,
 *   or a rollup short of the raw rows: CrashRecovery puts both right, for every suspect run at
 *   start-up (`recover`) and for each run before this process's first write to it (`prepare`).
 * - Live figures: the engine runs one statement at a time, so a query per live snapshot would wait
 *   behind the inserts; instead every group's batches are folded into the watched runs' figures
 *   in memory as the group is stored (LiveFiguresMemory), read from storage once per run.
 */
export class EmbeddedEventStore extends KnownBatchesStore implements EventStore {
  readonly soleWriter = true;
  readonly changeMarks = null;
  readonly live: LiveFiguresMemory;
  readonly group: GroupCommit;
  readonly #recovery: CrashRecovery;

  constructor(db: Db, options: { maxRuns?: number } = {}) {
    super(db, { ledgerRefreshMs: Number.POSITIVE_INFINITY, maxRuns: options.maxRuns ?? 1_000 });
    this.#recovery = new CrashRecovery(db);
    this.group = new GroupCommit(db, {
      maxRows: GROUP_MAX_ROWS,
      lingerMs: GROUP_LINGER_MS,
      onStored: (members) => {
        for (const m of members) if (m.columns) this.live.fold(m.insert.runId, m.columns);
      },
    });
    this.live = new LiveFiguresMemory(db, (job) => this.group.between(job));
  }

  describe(): string {
    return describeStorage(this.db.config);
  }

  arriving(): Arrival {
    return { release: this.group.expect() };
  }

  recover(): Promise<Recovered[]> {
    return this.#recovery.sweep();
  }

  override forget(runId: string): void {
    super.forget(runId);
    this.#recovery.forget(runId);
    this.live.drop(runId);
  }

  /** The ledger is written with each group: nothing waits in memory. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  protected async prepare(runId: string): Promise<void> {
    // A process that died mid-insert may have left ledger rows naming events that are not there,
    // or a rollup short of the raw rows: put right before this process writes to the run.
    const recovered = await this.#recovery.run(runId);
    // Figures read before the repair would miss what it rebuilt.
    if (recovered.secondsRebuilt > 0) this.live.reset(runId);
  }

  protected write(batch: StoreBatch, hash: string): Promise<void> {
    const insert = { runId: batch.runId, batchId: batch.batchId, agentId: batch.agentId, arrow: batch.arrow };
    const ledger = { run_id: batch.runId, batch_id: batch.batchId, agent_id: batch.agentId, events: batch.columns.length, content_hash: hash, received_at: batch.receivedAt };
    return this.group.submit({ insert, ledger, rows: batch.columns.length, columns: batch.columns }, () => batch.arrival?.release());
  }
}
