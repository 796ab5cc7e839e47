import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { AgentId, ARROW_STREAM_CONTENT_TYPE, BatchId, EventBatch, IngestResponse } from '../events.ts';
import { StepWindowBody } from '../step.ts';
import { API_PREFIX, endpoint } from './endpoint.ts';
import { RunIdParams } from './runs.ts';

/** batch_id and agent_id travel in the query string with an Arrow body (the JSON body carries its own). */
export const EventsQuery = z.object({ batch_id: BatchId.optional(), agent_id: AgentId.optional() });

const EVENTS_DESCRIPTION = `Two encodings of the same columns (level, ts_ms, latency_ms, compute_ms, queue_ms, status):
- \`application/json\`: the EventBatch body below, batch_id and agent_id inside it.
- \`${ARROW_STREAM_CONTENT_TYPE}\`: an Arrow IPC stream with those columns (float64, nulls allowed in compute_ms and
  queue_ms; integer status; other numeric widths are converted), batch_id and agent_id as query parameters.
Besides each column's bounds: once the run has steps, every level is one of theirs; compute_ms and queue_ms are each
at most their latency_ms + 1 ms (+ 1% above 100 ms). An Arrow stream whose buffer regions do not fit its bodies is refused.
A bad batch is refused whole (400 naming the column or entry); a batch_id stored before is not stored again
(\`duplicate: true\`), and one reused with different events is a 409.`;

/** What a load generator writes into a run: its steps' windows and its events. */
export const ingestEndpoints = {
  postStep: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/steps`,
    scope: 'ingest',
    service: 'run',
    summary: "Record a load level's time window (post again with ended_at when it ends)",
    tags: ['ingest'],
    params: RunIdParams,
    body: StepWindowBody,
    responses: { 200: z.object({ ok: z.literal(true) }), 400: ApiError, 409: ApiError, 503: ApiError },
  }),
  postEvents: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/events`,
    scope: 'ingest',
    service: 'run',
    summary: 'Ingest a columnar batch of request events, as JSON or Arrow (atomic, idempotent by batch_id)',
    description: EVENTS_DESCRIPTION,
    tags: ['ingest'],
    params: RunIdParams,
    query: EventsQuery,
    body: EventBatch,
    responses: { 200: IngestResponse, 400: ApiError, 409: ApiError, 413: ApiError, 415: ApiError, 429: ApiError, 503: ApiError, 507: ApiError },
  }),
} as const;
