import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError, PercentilesQuery, percentilesWanted, RunAnalysis } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { requireRunDetail } from '../../services/run-detail.ts';
import { IdParams } from './runs.ts';

export const analysisRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.get('/runs/:id/analysis', {
    schema: {
      summary: "The curve's knee, USL fit, scaling efficiency, verdict and warnings",
      tags: ['runs'],
      params: IdParams,
      querystring: PercentilesQuery,
      response: { 200: RunAnalysis, 400: ApiError, 404: ApiError },
    },
    handler: async (req) => (await requireRunDetail(db, req.params.id, 'id', percentilesWanted(req.query))).analysis,
  });
};
