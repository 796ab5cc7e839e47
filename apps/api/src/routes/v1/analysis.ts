import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError, Capacity, PercentilesQuery, percentilesWanted, RunAnalysis, SloParam } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { runCapacity } from '../../services/run-capacity.ts';
import { requireRunDetail } from '../../services/run-detail.ts';
import { IdParams } from './runs.ts';

/** With `slo=`, the analysis also answers capacity under those SLOs (added here: the analysis of the curve itself does not depend on an SLO). */
const AnalysisQuery = PercentilesQuery.extend({ slo: SloParam.optional() });
const AnalysisWithCapacity = RunAnalysis.extend({ capacity: Capacity.optional() });

export const analysisRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.get('/runs/:id/analysis', {
    schema: {
      summary: "The curve's knee, USL fit, scaling efficiency, verdict and warnings; with `slo=`, the capacity under those SLOs",
      tags: ['runs'],
      params: IdParams,
      querystring: AnalysisQuery,
      response: { 200: AnalysisWithCapacity, 400: ApiError, 404: ApiError },
    },
    handler: async (req) => {
      const detail = await requireRunDetail(db, req.params.id, 'id', percentilesWanted(req.query));
      if (!req.query.slo) return detail.analysis;
      return { ...detail.analysis, capacity: await runCapacity(db, detail, req.query.slo) };
    },
  });
};
