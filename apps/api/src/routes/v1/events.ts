import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ingestBatch } from '@kneeboard/clickhouse';
import { ApiError, EventBatch, IngestResponse } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { requireRunForIngest } from '../../services/run-detail.ts';
import { IdParams } from './runs.ts';

/** A full batch (100,000 events) is about 8 MB of JSON; leave room so the size check is zod's, with a named field. */
const EVENTS_BODY_LIMIT = 64 * 1024 * 1024;

export const eventRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, hub }) => {
  app.post('/runs/:id/events', {
    bodyLimit: EVENTS_BODY_LIMIT,
    schema: {
      summary: 'Ingest a columnar batch of request events (atomic, idempotent by batch_id)',
      tags: ['ingest'],
      params: IdParams,
      body: EventBatch,
      response: { 200: IngestResponse, 400: ApiError },
    },
    handler: async (req) => {
      await requireRunForIngest(db, req.params.id);
      const outcome = await ingestBatch(db, req.params.id, req.body);
      if (!outcome.duplicate) hub.notify(req.params.id);
      return outcome;
    },
  });
};
