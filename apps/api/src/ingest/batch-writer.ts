import { createHash } from 'node:crypto';
import { DeferredWriter, insertEventBatch, writeLedger, type Db, type LedgerEntry } from '@kneeboard/clickhouse';
import type { IngestResponse } from '@kneeboard/contracts';
import { encodeArrowColumns, type DecodedBatch, type EventColumns } from '@kneeboard/event-wire';
import { HttpError } from '../errors.ts';
import { GroupCommit } from './group-commit.ts';
import type { RunState } from './run-state-cache.ts';
import { orUnavailable } from './storage-failure.ts';

/** The batch's identity for "same id, same events?": its agent and its column values, however they were encoded. */
function contentHash(agentId: string, c: EventColumns): string {
  const hash = createHash('sha1').update(agentId).update('\0');
  for (const a of [c.level, c.ts_ms, c.latency_ms, c.compute_ms, c.queue_ms, c.status]) hash.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  return hash.digest('base64url');
}

/** How often the ledger is written: 4 inserts a second whatever the batch rate. */
const LEDGER_INTERVAL_MS = 250;
/** Written at once when this many rows wait (one insert stays small). */
const LEDGER_MAX_ROWS = 2_000;
/** The embedded engine's largest coalesced insert: a dozen 20,000-event batches (~10 MB of Arrow). */
const GROUP_MAX_ROWS = 250_000;
/** At most this long does a group wait for its usual number of batches (the live chart's lag budget is 1 s). */
const GROUP_LINGER_MS = 10;

const reused = (batchId: string) =>
  new HttpError(409, `batch_id ${batchId} was already stored with different events; a new batch needs a new batch_id`, 'batch_id');

/**
 * Stores checked batches exactly once and says whether each was new.
 *
 * - On the embedded engine, batches go through GroupCommit: those that arrive while an insert runs
 *   go in together as the next one, each batch's ledger row written first (see there).
 * - On a server, the events go in as one Arrow insert per batch with the batch's deduplication
 *   token: ClickHouse itself drops a second copy, whichever API replica sends it, so nothing here
 *   needs a lock. There, the batch ledger is written in the background, a few inserts a second
 *   for all batches (`LEDGER_INTERVAL_MS`), not awaited: acknowledged means the events are
 *   stored. The ledger is what recognises a replay beyond the engine's deduplication window
 *   (10,000 batches) or in another process; a batch acknowledged in the last quarter second
 *   before a crash may miss its ledger row, but its agent holds an acknowledgement and will not
 *   resend it, and a copy sent anyway within the window is still dropped by the engine (stored
 *   once, answered as new).
 * - This process remembers what it stored (and what the ledger says others stored), so a replay is
 *   answered `duplicate` and a reused batch_id with other events 409, with no lookup per batch.
 */
export class BatchWriter {
  readonly #ledger: DeferredWriter<LedgerEntry>;
  /** The embedded engine's group commit; null on a server (one insert per batch, any number at once). */
  readonly group: GroupCommit | null;
  /** Batches being written right now, so a copy arriving meanwhile waits for the first. */
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    onLedgerError: (err: unknown) => void,
  ) {
    this.#ledger = new DeferredWriter((entries) => writeLedger(db, entries), {
      intervalMs: LEDGER_INTERVAL_MS,
      maxItems: LEDGER_MAX_ROWS,
      onError: onLedgerError,
    });
    this.group = db.config.mode === 'embedded' ? new GroupCommit(db, { maxRows: GROUP_MAX_ROWS, lingerMs: GROUP_LINGER_MS }) : null;
  }

  /**
   * `arrow`: the batch's canonical Arrow stream when it arrived as one (otherwise it is encoded here).
   * `arrived`: the release of the request's GroupCommit.expect(), called once the batch is queued.
   */
  async store(runId: string, state: RunState, batch: DecodedBatch, arrow?: Uint8Array, now = Date.now(), arrived?: () => void): Promise<IngestResponse> {
    const hash = contentHash(batch.agent_id, batch.columns);
    const key = `${runId}:${batch.batch_id}`;
    for (;;) {
      const known = state.batches.get(batch.batch_id);
      if (known) {
        if (known.contentHash !== '' && known.contentHash !== hash) throw reused(batch.batch_id);
        return { accepted: 0, duplicate: true };
      }
      const pending = this.#inFlight.get(key);
      if (pending === undefined) break;
      // The same batch is being written: its outcome is ours (stored → duplicate; failed → try again).
      // Not a batch on its way to the group commit meanwhile: the group it waits for must not wait for it.
      arrived?.();
      await pending.catch(() => undefined);
    }
    const write = this.#write(runId, batch, arrow ?? encodeArrowColumns(batch.columns), hash, now, arrived).catch((err: unknown) => {
      // Not stored. Its ledger row, written first, may have been read back meanwhile: forget it, or
      // the copy sent again would be taken for a duplicate of events that are not there.
      state.batches.delete(batch.batch_id);
      throw err;
    });
    this.#inFlight.set(key, write);
    try {
      await write;
    } finally {
      this.#inFlight.delete(key);
    }
    state.batches.set(batch.batch_id, { contentHash: hash, events: batch.columns.length });
    return { accepted: batch.columns.length, duplicate: false };
  }

  /** Resolves once every write of the run this process has under way has ended, stored or not (a deletion waits for them). */
  async settle(runId: string): Promise<void> {
    const prefix = `${runId}:`;
    await Promise.all([...this.#inFlight].filter(([key]) => key.startsWith(prefix)).map(([, write]) => write.catch(() => undefined)));
  }

  /** Writes the ledger rows still waiting (before closing the database, and in tests of other processes' view). */
  flushLedger(): Promise<void> {
    return this.#ledger.flush();
  }

  /** Whether or not a failed insert landed, the retry stores the batch exactly once: a 503 is the honest answer. */
  async #write(runId: string, batch: DecodedBatch, arrow: Uint8Array, hash: string, now: number, arrived?: () => void): Promise<void> {
    await orUnavailable('the batch', () => this.#writeOnce(runId, batch, arrow, hash, now, arrived));
  }

  async #writeOnce(runId: string, batch: DecodedBatch, arrow: Uint8Array, hash: string, now: number, arrived?: () => void): Promise<void> {
    const insert = { runId, batchId: batch.batch_id, agentId: batch.agent_id, arrow };
    const ledger = { run_id: runId, batch_id: batch.batch_id, agent_id: batch.agent_id, events: batch.columns.length, content_hash: hash, received_at: now };
    if (this.group) return this.group.submit({ insert, ledger, rows: batch.columns.length }, arrived);
    await insertEventBatch(this.db, insert);
    this.#ledger.add(ledger);
  }
}
