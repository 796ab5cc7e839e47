import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ENDPOINTS, percentilesWanted } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { HttpError } from '../../errors.ts';
import { projectRunCapacity, runCapacity } from '../../services/run-capacity.ts';
import { requireRunDetail } from '../../services/run-detail.ts';
import { routeOf } from '../endpoint-route.ts';

/** With `slo=`, the analysis also answers capacity under those SLOs (added here: the analysis of the curve itself does not depend on an SLO). */

export const analysisRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.route({
    ...routeOf(ENDPOINTS.runAnalysis),
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
