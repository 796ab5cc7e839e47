import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { FinishRunBody, MAX_BATCH_EVENTS, StepWindow, type CreateRunInput, type StepWindowInput } from '@kneeboard/contracts';
import type { EventColumns } from '@kneeboard/event-wire';
import { KneeboardApi } from './api-client.ts';
import { EventBuffer } from './event-buffer.ts';
import { Outbox, type Delivery, type OutboxStats } from './outbox.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.ts';
import { RunSpool } from './spool.ts';
import { batchBody, jsonBody, type WireBody, type WireFormat } from './wire-body.ts';
import { wallClockMs } from './wall-clock.ts';

/** Where unacknowledged calls wait on disk unless told otherwise: under the working directory, like a build cache. */
export const DEFAULT_SPOOL_DIR = '.kneeboard/spool';

export type StepHealthInput = NonNullable<StepWindowInput['health']>;
export type StepConnectionsInput = NonNullable<StepWindowInput['connections']>;

/** One request as a load generator saw it. */
export interface RecordedEvent {
  level: number;
  /** Client latency, ms (from the intended send time in an open loop). */
  latencyMs: number;
  /** The server's own times from Server-Timing, when it sent them. */
  computeMs?: number | null;
  queueMs?: number | null;
  /** HTTP status; 0 for a transport error (refused, reset, timed out). */
  status: number;
  /** Completion time, epoch ms; default now. */
  tsMs?: number;
  /** The request's name (endpoint / request label, ≤ 200 characters); none: one curve, as before names. */
  name?: string;
}

export interface RecorderOptions {
  /** The Kneeboard API's base URL, or a client to share. */
  api: string | KneeboardApi;
  /** With a base URL: the API token to send (an ingest token is enough). */
  token?: string | undefined;
  /** The run to create. */
  run?: CreateRunInput;
  /** Or record into a run that already exists (created by another tool, or an earlier import): no run is created. */
  runId?: string;
  /** Default `.kneeboard/spool` under the working directory; null keeps unsent data in memory only. */
  spoolDir?: string | null;
  /** Default `<hostname>-<pid>`. */
  agentId?: string;
  /** How batches travel: `arrow` (default; Arrow IPC, what the API takes at full rate) or `json`. */
  wireFormat?: WireFormat;
  /** A batch leaves at least this often while events wait. Default 500 ms. */
  flushIntervalMs?: number;
  /** A batch leaves as soon as this many events wait. Default 20,000 (the API takes up to 100,000). */
  maxBatchEvents?: number;
  /** Unsent bodies kept in memory; beyond, only on disk. Default 64 MiB. */
  maxMemoryBytes?: number;
  /** Default 1 GiB. */
  maxSpoolBytes?: number;
  retry?: RetryPolicy;
  onRetry?: (notice: { what: string; attempt: number; delayMs: number; error: unknown }) => void;
  /** Events that will never be stored (a final 4xx, or no room left): the caller decides whether to stop. */
  onLost?: (error: unknown, lost: { kind: string; events: number }) => void;
  onWarning?: (message: string) => void;
  newBatchId?: () => string;
}

export interface StepHandle {
  readonly level: number;
  /** Posts the open window. Default: starts now, measured from now. */
  start(at?: { startedAt?: number; measureFrom?: number }): { startedAt: number; measureFrom: number };
  /** Posts the final window, with the agent's health and the connections it opened if known. Default end: now. */
  end(options?: { endedAt?: number; health?: StepHealthInput | null; connections?: StepConnectionsInput | null }): Promise<Delivery>;
}

export interface RecorderStats extends OutboxStats {
  recorded: number;
}

export interface RecorderReport extends RecorderStats {
  runId: string;
  /** Where undelivered calls wait, when any do: `kneeboard flush --spool-dir <this>` re-sends them. */
  spoolDir: string | null;
}

export interface Recorder {
  readonly runId: string;
  step(level: number): StepHandle;
  /** Constant time, never waits on the network. */
  record(event: RecordedEvent): void;
  /**
   * Records a block of events already in columns (`ts_ms` epoch ms, NaN for a missing
   * compute/queue time), kept as it is: nothing per event. The caller must not change it afterwards.
   * Optional: a recorder without it takes events one by one through record().
   */
  recordColumns?(columns: EventColumns): void;
  /** Cuts the current batch and resolves once everything recorded so far is delivered (or settled otherwise). */
  flush(): Promise<void>;
  /** Cuts the last batch, finishes the run, waits up to timeoutMs (default 30 s) for delivery; the rest stays spooled. */
  finish(status?: 'finished' | 'aborted', options?: { timeoutMs?: number }): Promise<RecorderReport>;
  stats(): RecorderStats;
}

/**
 * Creates the run (or takes `runId`'s) and returns a recorder for it: events are buffered in columns and cut into a
 * batch every flush interval (or when full), and every API call — batches, step windows, the
 * finish — goes through one ordered, disk-backed queue, so neither a slow API nor a dead one slows
 * the caller or loses data. Creating the run is the one call that needs the API up.
 */
export async function createRecorder(options: RecorderOptions): Promise<Recorder> {
  const ownsApi = typeof options.api === 'string';
  const api = typeof options.api === 'string' ? new KneeboardApi({ baseUrl: options.api, retry: options.retry, token: options.token }) : options.api;
  try {
    if ((options.run === undefined) === (options.runId === undefined)) throw new TypeError('createRecorder needs exactly one of run and runId');
    const runId = options.runId ?? (await api.createRun(options.run!));
    const spoolDir = options.spoolDir === null ? null : resolve(options.spoolDir ?? DEFAULT_SPOOL_DIR);
    const spool = spoolDir === null ? null : await RunSpool.open(spoolDir, runId);
    return new RunRecorder(api, ownsApi, runId, spool, options);
  } catch (err) {
    if (ownsApi) await api.close();
    throw err;
  }
}

class RunRecorder implements Recorder {
  private readonly buffer = new EventBuffer();
  private readonly outbox: Outbox;
  private readonly agentId: string;
  private readonly wireFormat: WireFormat;
  private readonly maxBatchEvents: number;
  private readonly newBatchId: () => string;
  private readonly timer: NodeJS.Timeout;
  private recorded = 0;
  private cutScheduled = false;
  private lastDelivery: Promise<Delivery> = Promise.resolve('delivered');
  private finished = false;

  constructor(
    private readonly api: KneeboardApi,
    private readonly ownsApi: boolean,
    readonly runId: string,
    private readonly spool: RunSpool | null,
    o: RecorderOptions,
  ) {
    this.agentId = o.agentId ?? `${hostname()}-${process.pid}`.slice(0, 128);
    this.wireFormat = o.wireFormat ?? 'arrow';
    this.maxBatchEvents = o.maxBatchEvents ?? 20_000;
    if (!Number.isInteger(this.maxBatchEvents) || this.maxBatchEvents < 1 || this.maxBatchEvents > MAX_BATCH_EVENTS) {
      throw new RangeError(`maxBatchEvents must be 1–${MAX_BATCH_EVENTS}, got ${this.maxBatchEvents}`);
    }
    this.newBatchId = o.newBatchId ?? randomUUID;
    this.outbox = new Outbox({
      api,
      runId,
      spool,
      maxMemoryBytes: o.maxMemoryBytes ?? 64 * 2 ** 20,
      maxSpoolBytes: o.maxSpoolBytes ?? 2 ** 30,
      retry: o.retry ?? DEFAULT_RETRY_POLICY,
      onRetry: o.onRetry,
      onLost: o.onLost,
      onWarning: o.onWarning,
    });
    this.timer = setInterval(() => this.cut(), o.flushIntervalMs ?? 500);
    // Buffered events must not keep a finished program alive; finish() is how they are delivered.
    this.timer.unref();
  }

  step(level: number): StepHandle {
    let window: { startedAt: number; measureFrom: number } | undefined;
    return {
      level,
      start: (at = {}) => {
        const startedAt = at.startedAt ?? wallClockMs();
        window = { startedAt, measureFrom: at.measureFrom ?? startedAt };
        this.post('steps', StepWindow.parse({ level, started_at: startedAt, measure_from: window.measureFrom, ended_at: null }));
        return window;
      },
      end: ({ endedAt, health, connections } = {}) => {
        if (window === undefined) throw new Error(`step ${level}: end() before start()`);
        // Events recorded so far go out before the final window, so a dashboard never shows a closed
        // window that is still missing its requests.
        this.cut();
        const ended_at = Math.max(endedAt ?? wallClockMs(), window.measureFrom);
        return this.post('steps', StepWindow.parse({ level, started_at: window.startedAt, measure_from: window.measureFrom, ended_at, health, ...(connections ? { connections } : {}) }));
      },
    };
  }

  record(e: RecordedEvent): void {
    if (this.finished) throw new Error('record() after finish()');
    this.buffer.append(e.level, e.tsMs ?? wallClockMs(), e.latencyMs, e.computeMs ?? null, e.queueMs ?? null, e.status, e.name);
    this.recorded += 1;
    this.scheduleFullCut();
  }

  recordColumns(columns: EventColumns): void {
    if (this.finished) throw new Error('recordColumns() after finish()');
    this.buffer.appendColumns(columns);
    this.recorded += columns.length;
    this.scheduleFullCut();
  }

  /** Cut a full batch soon, not inside the caller's completion handler. */
  private scheduleFullCut(): void {
    if (this.buffer.length >= this.maxBatchEvents && !this.cutScheduled) {
      this.cutScheduled = true;
      setImmediate(() => this.cut(this.maxBatchEvents));
    }
  }

  async flush(): Promise<void> {
    this.cut();
    await this.lastDelivery;
  }

  async finish(status: 'finished' | 'aborted' = 'finished', { timeoutMs = 30_000 } = {}): Promise<RecorderReport> {
    this.cut();
    this.finished = true;
    clearInterval(this.timer);
    this.post('finish', FinishRunBody.parse({ status }));
    const stats = await this.outbox.close(timeoutMs);
    await this.spool?.close();
    if (this.ownsApi) await this.api.close();
    return { ...stats, recorded: this.recorded, runId: this.runId, spoolDir: stats.spooledEntries > 0 ? (this.spool?.spoolDir ?? null) : null };
  }

  stats(): RecorderStats {
    return { ...this.outbox.stats(), recorded: this.recorded };
  }

  /** Cuts batches while at least `min` events wait: full ones only when a batch filled up, everything on the timer. */
  private cut(min = 1): void {
    this.cutScheduled = false;
    while (this.buffer.length >= min) {
      const columns = this.buffer.take(this.maxBatchEvents);
      this.enqueue('events', batchBody(this.wireFormat, this.newBatchId(), this.agentId, columns), columns.length);
    }
  }

  private post(kind: 'steps' | 'finish', body: unknown): Promise<Delivery> {
    return this.enqueue(kind, jsonBody(body));
  }

  private enqueue(kind: 'events' | 'steps' | 'finish', body: WireBody, events = 0): Promise<Delivery> {
    this.lastDelivery = this.outbox.enqueue(kind, body, events);
    return this.lastDelivery;
  }
}
