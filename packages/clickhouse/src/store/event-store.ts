import type { CurvePoint } from '@kneeboard/contracts';

/**
 * The one interface the API's write path, its live hub and its routes see of where event batches
 * go. Two implementations, chosen once where storage is opened (openEventStore): the embedded
 * engine's (group commit, ledger first, reconciled after a crash: embedded-store.ts) and a
 * server's (one deduplicated insert per batch, ledger after, in the background: server-store.ts).
 * Each owns its exactly-once protocol; nothing outside asks which one it has.
 */

/** A batch's event columns (the same shape as @kneeboard/event-wire's EventColumns). */
export interface BatchColumns {
  readonly length: number;
  readonly level: Float64Array;
  readonly ts_ms: Float64Array;
  readonly latency_ms: Float64Array;
  readonly compute_ms: Float64Array;
  readonly queue_ms: Float64Array;
  readonly status: Uint16Array;
}

/**
 * A request whose batch is on its way (its body is being read and checked): the embedded engine's
 * next coalesced insert waits for it. Released once its batch is queued, or when its request ends
 * (idempotent): it travels with the batch it announces, so no signature carries it separately.
 */
export interface Arrival {
  release(): void;
}

/** A checked batch, ready to store. */
export interface StoreBatch {
  runId: string;
  batchId: string;
  agentId: string;
  columns: BatchColumns;
  /** The batch as one canonical Arrow IPC stream (`encodeArrowColumns`). */
  arrow: Uint8Array;
  /** When the API received it (epoch ms): its ledger time. */
  receivedAt: number;
  arrival?: Arrival | undefined;
}

/** `stored`: new, durable now. `duplicate`: stored before (by this process or another), nothing written. */
export type StoreOutcome = 'stored' | 'duplicate';

/** A batch id sent again with other events: the sender's mistake (the API answers 409). */
export class BatchIdReused extends Error {
  constructor(readonly batchId: string) {
    super(`batch_id ${batchId} was already stored with different events; a new batch needs a new batch_id`);
    this.name = 'BatchIdReused';
  }
}

/**
 * An insert of several batches together failed: which of them storage could not read, it does not
 * say, so none is told its body is bad (each is answered as a storage failure, and sent again).
 */
export class SharedInsertFailed extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SharedInsertFailed';
  }
}

/** What a crash recovery did to one run, for the log. */
export interface Recovered {
  runId: string;
  /** Ledger rows of a group whose events never landed, removed (so its batches, sent again, are stored). */
  batchesForgotten: number;
  /** (level, second) rollup rows rebuilt from the raw rows. */
  secondsRebuilt: number;
}

/** Told the run a batch was just stored in (durable). */
export type ChangeListener = (runId: string) => void;

export interface EventStore {
  /** Where the events live, for the health report. */
  describe(): string;
  /** A batch is on its way: see Arrival. */
  arriving(): Arrival;
  /**
   * Stores the batch exactly once: resolves `stored` once its events are durable (on the embedded
   * engine, once its group is), `duplicate` if it was stored before. Throws BatchIdReused for an
   * id reused with other events, and the storage's error (SharedInsertFailed for a group) if it was
   * not stored — then it was not acknowledged and may be sent again.
   */
  store(batch: StoreBatch): Promise<StoreOutcome>;
  /** Every run a stored batch changed, once per batch, after it is durable. */
  onChange(listener: ChangeListener): () => void;
  /** Resolves once every write of the run under way in this process has ended, stored or not (a deletion waits for them). */
  settle(runId: string): Promise<void>;
  /**
   * Whether this process is the only writer of the data (embedded). If not, other API processes
   * may still write a run for a while after its deletion's tombstone is stored (until their cached
   * span sees it).
   */
  readonly soleWriter: boolean;
  /**
   * Change marks of runs (one cheap query for all), where other processes may write: how a live
   * view learns of their batches. Null where this process sees every write.
   */
  readonly changeMarks: ((runIds: string[]) => Promise<Map<string, string>>) | null;
  /** Figures of watched runs kept in memory from what was stored (see LiveFigures); null where other writers exist. */
  readonly live: LiveFigures | null;
  /** At start-up, before the first request: puts right what a process killed mid-insert left behind. */
  recover(): Promise<Recovered[]>;
  /** Forgets a deleted run. */
  forget(runId: string): void;
  /** Writes what is kept in memory for later (the server's ledger rows), before closing. */
  flush(): Promise<void>;
}

/** A watched run's figures kept current in memory by the store (the embedded one: live-figures.ts). */
export interface LiveFigures {
  /** A run's curve from memory: its stored figures read once (between inserts), then every stored batch folded in. */
  curve(runId: string): Promise<CurvePoint[]>;
  /** Reads the run's figures again at the next curve() (its step windows changed, or a check wants the query's answer). */
  reset(runId: string): void;
  /** Stops keeping the run's figures (nobody watches it). */
  drop(runId: string): void;
}
