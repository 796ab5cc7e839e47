import { z } from 'zod';
import { EpochMs, Level, Millis } from './common.ts';

/** Larger batches get a 400: one batch is one atomic ClickHouse insert block, and memory is bounded by it. */
export const MAX_BATCH_EVENTS = 100_000;

const column = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_BATCH_EVENTS, `at most ${MAX_BATCH_EVENTS} events per batch`);

const ARRAY_FIELDS = ['level', 'ts_ms', 'latency_ms', 'compute_ms', 'queue_ms', 'status'] as const;

/**
 * A batch of request events in columnar form: entry i of every array describes request i.
 * `ts_ms` is the completion time. `status` is the HTTP status, 0 for a transport error.
 * `compute_ms`/`queue_ms` are null where the server sent no Server-Timing for them.
 */
export const EventBatch = z
  .object({
    batch_id: z.string().min(1).max(128),
    agent_id: z.string().min(1).max(128),
    level: column(Level),
    ts_ms: column(EpochMs),
    latency_ms: column(Millis),
    compute_ms: column(Millis.nullable()),
    queue_ms: column(Millis.nullable()),
    status: column(z.number().int().min(0).max(999)),
  })
  .superRefine((b, ctx) => {
    const n = b.level.length;
    if (n === 0) ctx.addIssue({ code: 'custom', path: ['level'], message: 'a batch needs at least one event' });
    for (const field of ARRAY_FIELDS) {
      if (b[field].length !== n) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `has ${b[field].length} entries but level has ${n}: all arrays must have equal length`,
        });
      }
    }
  });
export type EventBatch = z.infer<typeof EventBatch>;

export const IngestResponse = z.object({
  accepted: z.number().int().nonnegative(),
  /** True when this batch_id had been stored before: nothing was written again. */
  duplicate: z.boolean(),
});
export type IngestResponse = z.infer<typeof IngestResponse>;
