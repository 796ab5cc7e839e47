import type { KneeboardApi } from '@kneeboard/agent-sdk';
import type { StepWindowInput } from '@kneeboard/contracts';
import type { EventColumns, EventNames } from '@kneeboard/event-wire';

export interface UploadStats {
  /** Events handed to the uploader. */
  recorded: number;
  /** Events the API acknowledged (including batches it already had). */
  uploaded: number;
  batches: number;
  duplicateBatches: number;
  lostEvents: number;
}

export interface UploaderOptions {
  api: KneeboardApi;
  runId: string;
  agentId: string;
  /** Events per batch. */
  batchEvents: number;
  /** The batch id of the n-th batch: deterministic for a file import, so a repeat is stored once. */
  batchId: (seq: number) => string;
  /** Batches posted at once. The API decodes and inserts batches in parallel; one at a time leaves it idle between. */
  inFlight: number;
}

/**
 * Columns built straight from the parser (no object per request), cut into Arrow batches and
 * posted several at a time. Steps are posted in order, each before any batch cut after it. The
 * first refusal stops the import (`failure`); a retriable error is retried by the API client.
 */
export class Uploader {
  private level: Float64Array;
  private ts: Float64Array;
  private latency: Float64Array;
  /** NaN where the tool recorded no Server-Timing for the request (sent as null). */
  private compute: Float64Array;
  private queue: Float64Array;
  private status: Uint16Array;
  /** Each request's name as a code into `names` (0: none); the column is sent only when some request has one. */
  private nameIndex: Uint32Array;
  private names = new Names();
  private n = 0;
  private seq = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private steps: Promise<void> = Promise.resolve();
  failure: Error | undefined;
  readonly stats: UploadStats = { recorded: 0, uploaded: 0, batches: 0, duplicateBatches: 0, lostEvents: 0 };

  constructor(private readonly o: UploaderOptions) {
    [this.level, this.ts, this.latency, this.compute, this.queue, this.status] = this.allocate();
    this.nameIndex = new Uint32Array(o.batchEvents);
  }

  add(level: number, tsMs: number, latencyMs: number, status: number, computeMs = Number.NaN, queueMs = Number.NaN, name = ''): void {
    const i = this.n++;
    this.nameIndex[i] = name === '' ? 0 : this.names.code(name);
    this.level[i] = level;
    this.ts[i] = tsMs;
    this.latency[i] = latencyMs;
    this.compute[i] = computeMs;
    this.queue[i] = queueMs;
    this.status[i] = status;
    if (this.n === this.o.batchEvents) this.cut();
  }

  get buffered(): number {
    return this.n;
  }

  /** Queues a step window; later batches are posted after it. */
  postStep(window: StepWindowInput): void {
    // Events read so far go before the window, so a closed window is never missing its requests.
    this.cut();
    const before = [...this.inFlight];
    this.steps = this.steps
      .then(() => Promise.all(before))
      .then(() => this.o.api.postStep(this.o.runId, window))
      .catch((err: unknown) => {
        this.failure ??= new Error(`the API refused step ${window.level}: ${(err as Error).message}`);
      });
  }

  /** Sends what is buffered as a (short) batch. */
  cut(): void {
    if (this.n === 0) return;
    const n = this.n;
    const columns: EventColumns = {
      length: n,
      level: this.level.subarray(0, n),
      ts_ms: this.ts.subarray(0, n),
      latency_ms: this.latency.subarray(0, n),
      compute_ms: this.compute.subarray(0, n),
      queue_ms: this.queue.subarray(0, n),
      status: this.status.subarray(0, n),
      ...(this.names.any ? { name: this.names.column(this.nameIndex.subarray(0, n)) } : {}),
    };
    [this.level, this.ts, this.latency, this.compute, this.queue, this.status] = this.allocate();
    this.nameIndex = new Uint32Array(this.o.batchEvents);
    this.names = new Names();
    this.n = 0;
    this.stats.recorded += n;
    const id = this.o.batchId(this.seq++);
    const sent = this.steps
      .then(() => this.o.api.postEventColumns(this.o.runId, id, this.o.agentId, columns))
      .then(
        (res) => {
          this.stats.uploaded += n;
          this.stats.batches += 1;
          if (res.duplicate) this.stats.duplicateBatches += 1;
        },
        (err: unknown) => {
          this.stats.lostEvents += n;
          this.failure ??= new Error(`the API refused a batch of ${n} events: ${(err as Error).message}`);
        },
      )
      .finally(() => this.inFlight.delete(sent));
    this.inFlight.add(sent);
  }

  /** Waits while more batches are on their way than may be (backpressure: the reader pauses, memory stays flat). */
  async ready(): Promise<void> {
    while (this.inFlight.size >= this.o.inFlight) await Promise.race(this.inFlight);
  }

  /** Sends the rest and waits for every batch and step (bounded by `timeoutMs`); true when all settled. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.cut();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const done = (async () => {
      while (this.inFlight.size > 0) await Promise.all(this.inFlight);
      await this.steps;
      return true as const;
    })();
    try {
      return await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private allocate(): [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Uint16Array] {
    const n = this.o.batchEvents;
    return [new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n), new Uint16Array(n)];
  }
}

/** A batch's names, each given a code once (code 0 is no name). */
class Names {
  private readonly codes = new Map<string, number>();
  private readonly values: string[] = [''];

  get any(): boolean {
    return this.values.length > 1;
  }

  code(name: string): number {
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.values.push(name) - 1;
      this.codes.set(name, code);
    }
    return code;
  }

  column(index: Uint32Array): EventNames {
    return { values: this.values, index };
  }
}
