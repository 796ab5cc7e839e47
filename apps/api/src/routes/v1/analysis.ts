import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError, Capacity, CapacityProjection, PercentilesQuery, percentilesWanted, RunAnalysis, SloParam } from '@kneeboard/contracts';
import { z } from 'zod';
import type { RouteDeps } from '../../deps.ts';
import { HttpError } from '../../errors.ts';
import { projectRunCapacity, runCapacity } from '../../services/run-capacity.ts';
import { requireRunDetail } from '../../services/run-detail.ts';
import { IdParams } from './runs.ts';

/** With `slo=`, the analysis also answers capacity under those SLOs (added here: the analysis of the curve itself does not depend on an SLO). */
const Qps = z.coerce.number().positive('must be a positive number of requests per second').max(1e9, 'must be at most 1e9');
const AnalysisQuery = PercentilesQuery.extend({
  slo: SloParam.optional(),
  target_qps: Qps.optional().meta({ description: 'With `slo=`: how many instances this many req/s needs (`capacity.projection`)' }),
  current_qps: Qps.optional().meta({ description: "With `slo=`: one instance's traffic today, for the headroom (`capacity.projection`)" }),
});
const AnalysisWithCapacity = RunAnalysis.extend({ capacity: Capacity.extend({ projection: CapacityProjection.optional() }).optional() });

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
      const { slo, target_qps: targetQps, current_qps: currentQps } = req.query;
      // A projection is capacity under SLOs carried further: without them it has nothing to stand on.
      if (!slo && (targetQps !== undefined || currentQps !== undefined)) {
        throw new HttpError(400, 'target_qps and current_qps need slo= (the projection is capacity under those SLOs)', targetQps !== undefined ? 'querystring.target_qps' : 'querystring.current_qps');
      }
      if (!slo) return detail.analysis;
      const capacity = await runCapacity(db, detail, slo);
      if (targetQps === undefined && currentQps === undefined) return { ...detail.analysis, capacity };
      return { ...detail.analysis, capacity: { ...capacity, projection: projectRunCapacity(detail.analysis, capacity, { targetQps, currentQps }) } };
    },
  });
};
