import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { upsertStep } from '@kneeboard/clickhouse';
import { ApiError, StepWindowBody, stepSpanProblem } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { HttpError } from '../../errors.ts';
import { orUnavailable } from '../../ingest/storage-failure.ts';
import { IdParams } from './runs.ts';

export const stepRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, hub, ingest }) => {
  app.post('/runs/:id/steps', {
    schema: {
      summary: "Record a load level's time window (post again with ended_at when it ends)",
      tags: ['ingest'],
      params: IdParams,
      body: StepWindowBody,
      response: { 200: z.object({ ok: z.literal(true) }), 400: ApiError, 409: ApiError, 503: ApiError },
    },
    handler: async (req) => {
      const { span } = await ingest.writableRun(req.params.id, 'late step windows');
      const far = stepSpanProblem({ from: span.steps_from, to: span.steps_to }, req.body);
      if (far) throw new HttpError(400, far.message, far.field);
      await orUnavailable('the step window', () => upsertStep(db, req.params.id, req.body));
      ingest.runs.invalidate(req.params.id);
      hub.notify(req.params.id);
      return { ok: true as const };
    },
  });
};
