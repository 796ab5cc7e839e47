import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { upsertStep } from '@kneeboard/clickhouse';
import { ApiError, StepWindow } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { requireRunForIngest } from '../../services/run-detail.ts';
import { IdParams } from './runs.ts';

export const stepRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, hub }) => {
  app.post('/runs/:id/steps', {
    schema: {
      summary: "Record a load level's time window (post again with ended_at when it ends)",
      tags: ['ingest'],
      params: IdParams,
      body: StepWindow,
      response: { 200: z.object({ ok: z.literal(true) }), 400: ApiError },
    },
    handler: async (req) => {
      await requireRunForIngest(db, req.params.id);
      await upsertStep(db, req.params.id, req.body);
      hub.notify(req.params.id);
      return { ok: true as const };
    },
  });
};
