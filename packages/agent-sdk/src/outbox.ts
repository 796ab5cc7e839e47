import { setTimeout as sleep } from 'node:timers/promises';
import { IngestResponse } from '@kneeboard/contracts';
import type { KneeboardApi } from './api-client.ts';
import { ApiHttpError } from './api-errors.ts';
import { isRetriable, type RetryPolicy } from './retry.ts';
import { entryPath, type EntryKind, type RunSpool } from './spool.ts';
import type { WireBody } from './wire-body.ts';

/** What became of one queued API call. `spooled`: not delivered before close, still on disk for a replay. */
export type Delivery = 'delivered' | 'rejected' | 'spooled' | 'lost';

export interface OutboxOptions {
  api: KneeboardApi;
  runId: string;
  /** null keeps everything in memory only (bounded by maxMemoryBytes; beyond it, data is lost). */
  spool: RunSpool | null;
  /** Bodies kept in memory for a quick send; past this, a body lives only in its spool file until its turn. */
  maxMemoryBytes: number;
  /** Past this the spool takes no more; with memory full too, new data is lost (and reported). */
  maxSpoolBytes: number;
  /** Backoff between attempts. There is no give-up while the outbox is open: the data is on disk. */
  retry: RetryPolicy;
  onRetry?: (notice: { what: string; attempt: number; delayMs: number; error: unknown }) => void;
  /** Data that will never reach the API: refused with a final status, or no room left to keep it. */
  onLost?: (error: unknown, lost: { kind: EntryKind; events: number }) => void;
  /** Something worth telling that loses nothing yet, e.g. the spool could not be written (kept in memory). */
  onWarning?: (message: string) => void;
}

export interface OutboxStats {
  /** Events the API acknowledged, including batches it reported as already stored. */
  uploaded: number;
  batches: number;
  duplicateBatches: number;
  lostEvents: number;
  /** Calls (and events) left on disk when the outbox closed before it could deliver them. */
  spooledEntries: number;
  spooledEvents: number;
  retries: number;
  lastError: unknown;
}

interface Entry {
  seq: number;
  kind: EntryKind;
  events: number;
  bytes: number;
  body: WireBody | undefined;
  inMemory: boolean;
  file: string | undefined;
  persisted: Promise<void>;
  /** Set when the entry can be neither kept nor sent. */
  lost: boolean;
  settle: (d: Delivery) => void;
  settled: Promise<Delivery>;
}

/**
 * The ordered queue of API calls for one run: event batches, step windows and the finish. Every
 * call is written to the spool before it is sent (write-ahead, so even a killed agent loses
 * nothing acknowledged to its caller) and deleted only after the API's 2xx. Calls go one at a time
 * in the order they were made, so windows and batches arrive as they were produced. Retriable
 * failures (408/429/502/503/504/507, network) are retried with backoff for as long as the outbox is open;
 * a final refusal (e.g. 400) moves the file aside and reports the loss.
 */
export class Outbox {
  private readonly queue: Entry[] = [];
  private seq = 0;
  private memoryBytes = 0;
  private spoolBytes = 0;
  private sender: Promise<void> | undefined;
  private deadline = Infinity;
  private napping: AbortController | undefined;
  private readonly counters: OutboxStats = {
    uploaded: 0,
    batches: 0,
    duplicateBatches: 0,
    lostEvents: 0,
    spooledEntries: 0,
    spooledEvents: 0,
    retries: 0,
    lastError: undefined,
  };

  constructor(private readonly o: OutboxOptions) {}

  /** Queues a call; never waits for the network. The promise says what became of it. */
  enqueue(kind: EntryKind, body: WireBody, events = 0): Promise<Delivery> {
    const bytes = body.bytes.byteLength;
    let settle!: (d: Delivery) => void;
    const settled = new Promise<Delivery>((resolve) => (settle = resolve));
    const entry: Entry = { seq: ++this.seq, kind, events, bytes, body, inMemory: false, file: undefined, persisted: Promise.resolve(), lost: false, settle, settled };

    entry.inMemory = this.memoryBytes + bytes <= this.o.maxMemoryBytes;
    if (entry.inMemory) this.memoryBytes += bytes;
    const spool = this.o.spool;
    const spoolHasRoom = spool !== null && this.spoolBytes + bytes <= this.o.maxSpoolBytes;
    if (spoolHasRoom) {
      this.spoolBytes += bytes;
      entry.persisted = spool.write(entry.seq, kind, body).then(
        (file) => {
          entry.file = file;
          // Out of memory budget: the file is now the only copy, read back when its turn comes.
          if (!entry.inMemory) entry.body = undefined;
        },
        (err: unknown) => {
          this.spoolBytes -= bytes;
          if (!entry.inMemory) this.lose(entry, err);
          else this.o.onWarning?.(`could not write to the spool (${(err as Error).message}): a ${kind} call is kept in memory only`);
        },
      );
    } else if (!entry.inMemory) {
      this.lose(entry, new Error(spool === null ? 'the in-memory buffer is full and there is no spool directory' : 'the spool is full'));
      settle('lost');
      return settled;
    }
    this.queue.push(entry);
    this.kick();
    return settled;
  }

  /** Number of calls not yet settled. */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Stops accepting the wait: tries until everything is delivered or `timeoutMs` has passed, then
   * leaves what is left in the spool (counted in spooledEntries/Events) for a later replay.
   */
  async close(timeoutMs: number): Promise<OutboxStats> {
    this.deadline = Date.now() + timeoutMs;
    this.napping?.abort();
    while (this.sender) await this.sender;
    for (const e of this.queue.splice(0)) {
      await e.persisted;
      if (e.lost) {
        e.settle('lost');
      } else if (e.file !== undefined) {
        this.counters.spooledEntries += 1;
        this.counters.spooledEvents += e.events;
        e.settle('spooled');
      } else {
        this.lose(e, this.counters.lastError ?? new Error('not delivered before close'));
        e.settle('lost');
      }
    }
    return this.stats();
  }

  stats(): OutboxStats {
    return { ...this.counters };
  }

  /**
   * Starts the sender unless one runs. A call queued just as the sender found the queue empty (it
   * has finished its loop but not yet cleared `sender`) is picked up by a new sender right after.
   */
  private kick(): void {
    if (this.sender) return;
    this.sender = this.send().then(
      (drained) => {
        this.sender = undefined;
        if (drained && this.queue.length > 0) this.kick();
      },
      (err: unknown) => {
        this.sender = undefined;
        throw err;
      },
    );
  }

  /** Sends until the queue is empty (true) or the close deadline has passed (false). */
  private async send(): Promise<boolean> {
    while (this.queue.length > 0) {
      const e = this.queue[0]!;
      await e.persisted;
      let outcome: Delivery | 'stopped';
      if (e.lost) outcome = 'lost';
      else outcome = await this.deliver(e);
      if (outcome === 'stopped') return false; // past the deadline: close() accounts for the rest
      this.queue.shift();
      if (e.inMemory) this.memoryBytes -= e.bytes;
      e.settle(outcome);
    }
    return true;
  }

  private async deliver(e: Entry): Promise<Delivery | 'stopped'> {
    const body = e.body ?? (await this.o.spool!.read(e.file!));
    const path = entryPath(this.o.runId, e.kind, body);
    let backoff = this.o.retry.initialDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.o.api.postOnce(path, body.bytes, body.contentType);
        if (e.kind === 'events') {
          const res = IngestResponse.parse(answer);
          this.counters.uploaded += e.events;
          this.counters.batches += 1;
          if (res.duplicate) this.counters.duplicateBatches += 1;
        }
        await this.forget(e);
        return 'delivered';
      } catch (err) {
        this.counters.lastError = err;
        if (!isRetriable(err)) {
          if (e.file !== undefined) await this.o.spool!.reject(e.file);
          this.spoolBytes -= e.file === undefined ? 0 : e.bytes;
          this.lose(e, err);
          return 'rejected';
        }
        const left = this.deadline - Date.now();
        if (left <= 0) return 'stopped';
        const hinted = err instanceof ApiHttpError ? err.retryAfterMs : undefined;
        const delayMs = Math.min(hinted ?? Math.random() * backoff, left);
        this.counters.retries += 1;
        this.o.onRetry?.({ what: e.kind === 'events' ? `send a batch of ${e.events} events` : `post ${e.kind}`, attempt, delayMs, error: err });
        await this.nap(delayMs);
        backoff = Math.min(backoff * 2, this.o.retry.maxDelayMs);
      }
    }
  }

  /** A backoff that close() can cut short, so a closing agent tries again at once. */
  private async nap(ms: number): Promise<void> {
    this.napping = new AbortController();
    try {
      await sleep(ms, undefined, { signal: this.napping.signal });
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    } finally {
      this.napping = undefined;
    }
  }

  private async forget(e: Entry): Promise<void> {
    if (e.file === undefined) return;
    await this.o.spool!.remove(e.file);
    this.spoolBytes -= e.bytes;
  }

  private lose(e: Entry, err: unknown): void {
    e.lost = true;
    this.counters.lostEvents += e.events;
    this.counters.lastError = err;
    this.o.onLost?.(err, { kind: e.kind, events: e.events });
  }
}
