import { z } from 'zod';
import { LINE, plainLine } from './text.ts';
import { IngestEpochMs, IngestLevel, IngestMillis } from './common.ts';

/** Larger batches get a 400: one batch is one atomic ClickHouse insert block, and memory is bounded by it. */
export const MAX_BATCH_EVENTS = 100_000;

/** The Arrow IPC stream media type: the same columns as the JSON batch, batch_id and agent_id in the query string. */
export const ARROW_STREAM_CONTENT_TYPE = 'application/vnd.apache.arrow.stream';

/** The columns of a batch, in order. Entry i of every column describes request i. */
export const EVENT_COLUMNS = ['level', 'ts_ms', 'latency_ms', 'compute_ms', 'queue_ms', 'status'] as const;
export type EventColumnName = (typeof EVENT_COLUMNS)[number];

/** The columns that may hold null (the server sent no Server-Timing for them). */
export const NULLABLE_EVENT_COLUMNS: ReadonlySet<EventColumnName> = new Set(['compute_ms', 'queue_ms']);

/**
 * The optional column of request names (endpoint / request label: `search`, `GET /cart/{id}`).
 * Absent, null or '' is "no name": a run without names is one curve, as before names existed.
 */
export const EVENT_NAME_COLUMN = 'name';

/** The longest event name, in UTF-16 code units like every other label's limit. */
export const MAX_EVENT_NAME_LENGTH = 200;

/**
 * How many distinct names one run may hold (the API's KNEEBOARD_MAX_NAMES_PER_RUN): a name is a
 * curve and a rollup key, so a URL with ids in it used as a name would explode storage — a batch
 * that would take a run past the cap is refused whole with a 400 naming it.
 */
export const DEFAULT_MAX_NAMES_PER_RUN = 200;

/**
 * One event's name: one line of visible text (the rules of every label, `text.ts`), at most
 * MAX_EVENT_NAME_LENGTH long, not trimmed (the name is kept as the tool wrote it); '' is no name.
 */
export const EventName = z
  .string()
  .max(MAX_EVENT_NAME_LENGTH, `must be at most ${MAX_EVENT_NAME_LENGTH} characters`)
  .superRefine(plainLine)
  .meta(LINE);

/**
 * How far an event's completion time may lie outside its run's known time span (created_at, the
 * step windows, and now while the run takes data): clocks of load hosts drift, but not by hours.
 */
export const EVENT_TIME_SLACK_MS = 15 * 60_000;

/**
 * After a run is finished, batches, step windows and a repeated finish of a spooling agent are
 * still accepted for this long (the default of the API's KNEEBOARD_LATE_DATA_GRACE_S); later: 409.
 */
export const DEFAULT_LATE_DATA_GRACE_MS = 10 * 60_000;

const column = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_BATCH_EVENTS, `at most ${MAX_BATCH_EVENTS} events per batch`);

export const BatchId = z.string().min(1).max(128).superRefine(plainLine).meta(LINE);
export const AgentId = z.string().min(1).max(128).superRefine(plainLine).meta(LINE);

/** The query string of an Arrow batch: what the JSON body carries besides the columns. */
export const ArrowBatchQuery = z.object({ batch_id: BatchId, agent_id: AgentId });

/**
 * A batch of request events in columnar form: entry i of every array describes request i.
 * `ts_ms` is the completion time. `status` is the HTTP status, 0 for a transport error.
 * `compute_ms`/`queue_ms` are null where the server sent no Server-Timing for them.
 *
 * This schema documents the JSON body (OpenAPI) and types it; the API itself checks bodies column
 * by column in one pass (`@kneeboard/event-wire`), with the same rules and field names.
 */
export const EventBatch = z
  .object({
    batch_id: BatchId,
    agent_id: AgentId,
    level: column(IngestLevel),
    ts_ms: column(IngestEpochMs),
    latency_ms: column(IngestMillis),
    compute_ms: column(IngestMillis.nullable()),
    queue_ms: column(IngestMillis.nullable()),
    status: column(z.number().int().min(0).max(999)),
    /** Optional: each request's name; null or '' for a request without one. */
    name: column(EventName.nullable()).optional(),
  })
  .superRefine((b, ctx) => {
    const n = b.level.length;
    if (n === 0) ctx.addIssue({ code: 'custom', path: ['level'], message: 'a batch needs at least one event' });
    for (const field of EVENT_COLUMNS) {
      if (b[field].length !== n) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `has ${b[field].length} entries but level has ${n}: all arrays must have equal length`,
        });
      }
    }
    if (b.name !== undefined && b.name.length !== n) {
      ctx.addIssue({ code: 'custom', path: [EVENT_NAME_COLUMN], message: `has ${b.name.length} entries but level has ${n}: all arrays must have equal length` });
    }
  });
export type EventBatch = z.infer<typeof EventBatch>;

export const IngestResponse = z.object({
  accepted: z.number().int().nonnegative(),
  /**
   * True when this batch_id had been stored before: nothing was written again. A batch first
   * stored through another API replica may be answered `false` by this one; it is still stored once.
   */
  duplicate: z.boolean(),
});
export type IngestResponse = z.infer<typeof IngestResponse>;
