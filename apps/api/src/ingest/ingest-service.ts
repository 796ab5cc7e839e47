import { BatchIdReused, finishRun, insertServerMetrics, markRunDeleted, purgeRun, runRowsLeft, updateRun, upsertStep, type Arrival, type Db, type EventStore, type Recovered } from '@kneeboard/clickhouse';
import type { IngestResponse, Run, RunStatus, ServerMetricsBatch, StepWindow } from '@kneeboard/contracts';
import { BatchRejected, decodeArrowBatch, decodeJsonBatch, distinctNames, encodeArrowColumns, type DecodedBatch, type EventBounds } from '@kneeboard/event-wire';
import { HttpError } from '../errors.ts';
import { eventBounds, refuseLateWrite } from './run-lifecycle.ts';
import { RunNameCap } from './run-name-cap.ts';
import { RunStateCache, type RunState, type RunStateCacheOptions } from './run-state-cache.ts';
import { orUnavailable } from './storage-failure.ts';

export interface IngestOptions extends RunStateCacheOptions {
  /** How long a finished run still takes batches, steps and a repeated finish. */
  lateDataGraceMs: number;
  /** Distinct request names a run may hold (KNEEBOARD_MAX_NAMES_PER_RUN); default DEFAULT_MAX_NAMES_PER_RUN. */
  maxNamesPerRun?: number | undefined;
}

/** A batch as it arrived: a parsed JSON body, or Arrow bytes with the ids from the query string. */
/**
 * On a server, how long after the span cache's lifetime a deletion waits before removing rows: the
 * batch another replica accepted just before its cache saw the deletion has been written by then
 * (a 20,000-event insert takes tens of milliseconds; its ledger row follows within 250 ms).
 */
const REPLICA_SETTLE_MS = 1_000;
/** A deletion removes rows again if some arrived meanwhile (a write under way on another replica); at most this often. */
const PURGE_ROUNDS = 3;

/** A write to a deleted run: the same final answer as any unknown run (retrying cannot help). */
const deletedRun = (runId: string) => new HttpError(400, `unknown run ${runId}: it was deleted`, 'id');

/** `arrival`: the store's count of this batch while it is on its way (EventStore.arriving), released once it is queued. */
export type IncomingBatch = ({ kind: 'json'; body: unknown } | { kind: 'arrow'; bytes: Uint8Array; batch_id: string; agent_id: string }) & { arrival?: Arrival | undefined };

/**
 * The write path of one API process: run state from a cache, the lifecycle rules, the column
 * checks (against the run's time span), and the exactly-once writer.
 */
export class IngestService {
  readonly runs: RunStateCache;
  readonly #names: RunNameCap;
  /** Runs this process has deleted or is deleting: refused at once, before storage says so. */
  readonly #deleted = new Set<string>();
  readonly #changeListeners = new Set<(runId: string) => void>();

  constructor(
    private readonly db: Db,
    /** Where batches go, exactly once (embedded or server: it alone knows which). */
    private readonly store: EventStore,
    private readonly options: IngestOptions,
  ) {
    this.runs = new RunStateCache(db, options);
    this.#names = new RunNameCap(db, options.maxNamesPerRun);
  }

  /**
   * Told whenever this process changed a run other than by storing a batch (the store tells of
   * those): a step window, a finish, its labels or note, a deletion. The one place runs change.
   */
  onRunChange(listener: (runId: string) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  #changed(runId: string): void {
    this.runs.invalidate(runId);
    for (const listener of this.#changeListeners) listener(runId);
  }

  /** Records a step window (checked by the caller). */
  async recordStep(runId: string, window: StepWindow): Promise<void> {
    await upsertStep(this.db, runId, window);
    this.#changed(runId);
  }

  /** Stores what the server spent during a step (checked by the caller). */
  async recordServerMetrics(runId: string, batch: ServerMetricsBatch): Promise<void> {
    await insertServerMetrics(this.db, runId, batch);
    this.#changed(runId);
  }

  /** Marks the run finished (or aborted); null for an unknown run. `before`: it was finished already (the caller judges a repeat). */
  async finishRun(runId: string, status: Exclude<RunStatus, 'running'>, now: number, span: { started_at?: number | undefined; finished_at?: number | undefined }) {
    const finished = await finishRun(this.db, runId, status, now, span);
    if (finished) this.#changed(runId);
    return finished;
  }

  /** Sets the run's labels and/or note; null for an unknown run. */
  async updateRun(runId: string, change: { labels?: string[] | undefined; note?: string | undefined }): Promise<Run | null> {
    const run = await updateRun(this.db, runId, change);
    if (run) this.#changed(runId);
    return run;
  }

  /** A run the retention sweep deleted: forgotten here, and its watchers told. */
  forgetDeleted(runId: string): void {
    this.runs.forget(runId);
    this.#names.forget(runId);
    this.store.forget(runId);
    this.#changed(runId);
  }

  /** Whether this process has deleted the run or is deleting it (its tombstone may still be on its way). */
  isDeleted(runId: string): boolean {
    return this.#deleted.has(runId);
  }

  get lateDataGraceMs(): number {
    return this.options.lateDataGraceMs;
  }

  /** Distinct request names a run may hold: also how many names' curves a read answers at most. */
  get maxNamesPerRun(): number {
    return this.#names.max;
  }

  /** The run's state if it may take writes of kind `what` now: 400 for an unknown run, 409 past the grace period. */
  async writableRun(runId: string, what: string, now = Date.now()): Promise<RunState> {
    if (this.#deleted.has(runId)) throw deletedRun(runId);
    let state = await orUnavailable(what, () => this.runs.get(runId, { now }));
    // A cached "finished" may be stale in the other direction too: re-read before refusing.
    if (state && refuseLateWrite(state.span, now, this.options.lateDataGraceMs, what)) {
      state = await orUnavailable(what, () => this.runs.get(runId, { fresh: true, now }));
    }
    // Ingest into an unknown run is the agent's mistake, final like any 400: retrying cannot help.
    if (!state) throw new HttpError(400, `unknown run ${runId}`, 'id');
    const refusal = refuseLateWrite(state.span, now, this.options.lateDataGraceMs, what);
    if (refusal) throw refusal;
    return state;
  }

  /**
   * A batch is on its way (its request has arrived): on the embedded engine the next coalesced
   * insert waits for it. Pass it with the batch to ingest(); release it anyway when the request
   * ends (idempotent).
   */
  expectBatch(): Arrival {
    return this.store.arriving();
  }

  async ingest(runId: string, incoming: IncomingBatch, now = Date.now()): Promise<IngestResponse> {
    let state = await this.writableRun(runId, 'late batches', now);
    let batch: Decoded;
    try {
      batch = decode(incoming, eventBounds(state.span, now));
    } catch (err) {
      // Steps posted through another replica since the span was read may widen it, or add a level: look once more.
      if (!(err instanceof BatchRejected) || !(err.field.startsWith('ts_ms') || err.field.startsWith('level['))) throw err;
      state = (await orUnavailable('the batch', () => this.runs.get(runId, { fresh: true, now }))) ?? state;
      batch = decode(incoming, eventBounds(state.span, now));
    }
    if (batch.columns.name) await orUnavailable('the batch', () => this.#names.admit(runId, distinctNames(batch.columns.name)));
    // Checked again with no await since: a deletion that began meanwhile waits only for writes already under way.
    if (this.#deleted.has(runId)) throw deletedRun(runId);
    const arrow = batch.canonicalArrow ?? encodeArrowColumns(batch.columns);
    // Whether or not a failed insert landed, the retry stores the batch exactly once: a 503 is the honest answer.
    const outcome = await orUnavailable('the batch', () =>
      this.store
        .store({ runId, batchId: batch.batch_id, agentId: batch.agent_id, columns: batch.columns, arrow, receivedAt: now, arrival: incoming.arrival })
        .catch((err: unknown) => {
          throw err instanceof BatchIdReused ? new HttpError(409, err.message, 'batch_id') : err;
        }),
    );
    // Deleted while it was written: the deletion removes these rows (it waited for this write), so no acknowledgement.
    if (this.#deleted.has(runId)) throw deletedRun(runId);
    return outcome === 'stored' ? { accepted: batch.columns.length, duplicate: false } : { accepted: 0, duplicate: true };
  }

  /**
   * Deletes the run so that the deletion wins over any write racing it: the tombstone goes to
   * storage first (from then on every API process refuses the run: getRunSpan answers null), this
   * process's own writes of the run are waited for, on a server the other replicas' cached spans
   * are let expire, and only then are the rows removed — again if some arrived meanwhile. A full
   * disk fails the tombstone or a mutation at once (the caller answers 507); a deletion cut short
   * is finished by the retention sweep (deletedRunsWithRows).
   */
  async deleteRun(runId: string): Promise<void> {
    this.#deleted.add(runId);
    try {
      await markRunDeleted(this.db, runId);
    } catch (err) {
      // Nothing was deleted: the run goes on as before.
      this.#deleted.delete(runId);
      throw err;
    }
    this.runs.forget(runId);
    await this.store.settle(runId);
    if (!this.store.soleWriter) await new Promise((resolve) => setTimeout(resolve, this.runs.spanTtlMs + REPLICA_SETTLE_MS));
    for (let round = 1; ; round++) {
      await purgeRun(this.db, runId);
      if (round >= PURGE_ROUNDS || (await runRowsLeft(this.db, runId)) === 0) break;
    }
    this.runs.forget(runId);
    this.store.forget(runId);
    this.#names.forget(runId);
    // Its watchers are told once the rows are gone (a fleet plan is dropped then).
    this.#changed(runId);
  }

  /**
   * At start-up, before the first request (embedded engine): what the previous process left half
   * written when it died is put right, for every run it touched (see CrashRecovery).
   */
  recover(): Promise<Recovered[]> {
    return this.store.recover();
  }

  /** Writes what the batch ledger still holds in memory (on close). */
  flushLedger(): Promise<void> {
    return this.store.flush();
  }
}

/** A checked batch, with its Arrow bytes when they are already the canonical encoding (stored as they came). */
type Decoded = DecodedBatch & { canonicalArrow?: Uint8Array };

function decode(incoming: IncomingBatch, bounds: EventBounds): Decoded {
  if (incoming.kind === 'json') return decodeJsonBatch(incoming.body, bounds);
  const { columns, canonical } = decodeArrowBatch(incoming.bytes, bounds);
  return { batch_id: incoming.batch_id, agent_id: incoming.agent_id, columns, ...(canonical ? { canonicalArrow: incoming.bytes } : {}) };
}
