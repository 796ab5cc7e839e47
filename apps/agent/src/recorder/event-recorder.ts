import { randomUUID } from 'node:crypto';
import { MAX_BATCH_EVENTS, type EventBatch, type IngestResponse } from '@kneeboard/contracts';
import { EventBuffer } from './event-buffer.ts';

export interface EventRecorderOptions {
  /** Delivers one batch; expected to retry transient failures itself (KneeboardApi.postEvents does). */
  send: (batch: EventBatch) => Promise<IngestResponse>;
  agentId: string;
  /** A batch leaves at least this often while events are buffered. Default 1000 ms. */
  flushIntervalMs?: number;
  /** A batch leaves as soon as this many events wait, and never carries more. Default 20,000. */
  maxBatchEvents?: number;
  /** Called when a batch is given up (a final 4xx, or retries exhausted). Those events are lost. */
  onBatchLost?: (error: unknown, events: number) => void;
  newBatchId?: () => string;
}

export interface UploadStats {
  recorded: number;
  /** Events the API acknowledged (including batches it already had). */
  uploaded: number;
  batches: number;
  /** Batches the API reported as already stored: a retry whose first attempt had got through. */
  duplicateBatches: number;
  lostEvents: number;
  lastError: unknown;
}

/**
 * Buffers request events and uploads them in batches from a background flusher, so recording never
 * waits on the network. One batch is in flight at a time; each gets a fresh batch_id when it is cut
 * from the buffer and keeps it through every retry, and is dropped from memory once acknowledged —
 * never sent again after a success.
 */
export class EventRecorder {
  private readonly buffer = new EventBuffer();
  private readonly send: EventRecorderOptions['send'];
  private readonly agentId: string;
  private readonly maxBatchEvents: number;
  private readonly onBatchLost: EventRecorderOptions['onBatchLost'];
  private readonly newBatchId: () => string;
  private readonly timer: NodeJS.Timeout;
  /** Events recorded / cut into batches so far; a flush request sends everything up to a recorded count. */
  private recordedCount = 0;
  private takenCount = 0;
  private flushUpTo = 0;
  private draining: Promise<void> | undefined;
  private closed = false;
  private readonly counters: UploadStats = { recorded: 0, uploaded: 0, batches: 0, duplicateBatches: 0, lostEvents: 0, lastError: undefined };

  constructor(options: EventRecorderOptions) {
    this.send = options.send;
    this.agentId = options.agentId;
    this.maxBatchEvents = options.maxBatchEvents ?? 20_000;
    if (!Number.isInteger(this.maxBatchEvents) || this.maxBatchEvents < 1 || this.maxBatchEvents > MAX_BATCH_EVENTS) {
      throw new RangeError(`maxBatchEvents must be 1–${MAX_BATCH_EVENTS}, got ${this.maxBatchEvents}`);
    }
    this.onBatchLost = options.onBatchLost;
    this.newBatchId = options.newBatchId ?? randomUUID;
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs ?? 1_000);
    // Buffered events must not keep a finished program alive; close() is how they are delivered.
    this.timer.unref();
  }

  /** Appends one request. Constant time; never waits. `status` 0 means a transport error. */
  record(level: number, tsMs: number, latencyMs: number, computeMs: number | null, queueMs: number | null, status: number): void {
    if (this.closed) throw new Error('record() after close()');
    this.buffer.append(level, tsMs, latencyMs, computeMs, queueMs, status);
    this.recordedCount += 1;
    if (this.buffer.length >= this.maxBatchEvents && this.draining === undefined) this.drain();
  }

  /** Sends everything recorded so far; resolves once it is acknowledged or given up. */
  async flush(): Promise<void> {
    const upTo = this.recordedCount;
    this.flushUpTo = Math.max(this.flushUpTo, upTo);
    // The drain in progress (if any) picks up the new target; otherwise start one. Waiting for it to
    // end, not just to take our events, means our last batch has been acknowledged.
    while (this.takenCount < upTo || this.draining !== undefined) await (this.draining ?? this.drain());
  }

  /** Stops the timer and delivers everything left. */
  async close(): Promise<UploadStats> {
    this.closed = true;
    clearInterval(this.timer);
    await this.flush();
    return this.stats();
  }

  stats(): UploadStats {
    return { ...this.counters, recorded: this.recordedCount };
  }

  private drain(): Promise<void> {
    const run = async () => {
      // Full batches go at once; a partial one only when a flush asked for it, so the API sees
      // about one insert per second rather than one per event that arrived during the last send.
      while (this.buffer.length >= this.maxBatchEvents || (this.takenCount < this.flushUpTo && this.buffer.length > 0)) {
        const columns = this.buffer.take(this.maxBatchEvents);
        const n = columns.level.length;
        this.takenCount += n;
        await this.deliver({ batch_id: this.newBatchId(), agent_id: this.agentId, ...columns });
      }
    };
    this.draining = run().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async deliver(batch: EventBatch): Promise<void> {
    const n = batch.level.length;
    try {
      const res = await this.send(batch);
      this.counters.uploaded += n;
      this.counters.batches += 1;
      if (res.duplicate) this.counters.duplicateBatches += 1;
    } catch (err) {
      this.counters.lostEvents += n;
      this.counters.lastError = err;
      this.onBatchLost?.(err, n);
    }
  }
}
