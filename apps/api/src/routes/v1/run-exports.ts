import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ENDPOINTS, percentilesWanted } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { curveCsv } from '../../services/curve-csv.ts';
import { runCurveSvg } from '../../services/curve-svg.ts';
import { runCapacity } from '../../services/run-capacity.ts';
import { loadRunCost } from '../../services/run-cost.ts';
import { loadNameCurves } from '../../services/name-curves.ts';
import { nameCurvesCsv } from '../../services/name-curves-csv.ts';
import { requireRunDetail } from '../../services/run-detail.ts';
import { notFound } from '../../errors.ts';
import { routeOf } from '../endpoint-route.ts';

/** Files have no body field to say it: a header tells where the percentiles came from. */
const PERCENTILES_HEADER = 'kneeboard-percentiles';

/** A run's curve in forms for elsewhere: an embeddable SVG and a CSV for spreadsheets. */
export const runExportRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, ingest }) => {
  app.route({
    ...routeOf(ENDPOINTS.runCurveSvg),
    handler: async (req, reply) => {
      const detail = await requireRunDetail(db, req.params.id, 'id', percentilesWanted(req.query));
      const capacity = req.query.slo ? await runCapacity(db, detail, req.query.slo) : undefined;
      return reply
        .type('image/svg+xml; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header(PERCENTILES_HEADER, detail.percentiles ?? 'rollup')
        .send(runCurveSvg(detail, req.query, capacity));
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.runCurveCsv),
    handler: async (req, reply) => {
      const detail = await requireRunDetail(db, req.params.id, 'id', percentilesWanted(req.query));
      const capacity = req.query.slo ? await runCapacity(db, detail, req.query.slo) : undefined;
      const cost = await loadRunCost(db, detail);
      return reply
        .type('text/csv; charset=utf-8')
        .header(PERCENTILES_HEADER, detail.percentiles ?? 'rollup')
        .header('content-disposition', `attachment; filename="${`${detail.run.service}-${detail.run.release}-curve.csv`.replace(/[^\w.@-]+/g, '_')}"`)
        .send(curveCsv(detail, capacity, cost));
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.runNamesCsv),
    handler: async (req, reply) => {
      const read = await loadNameCurves(db, req.params.id, percentilesWanted(req.query), ingest.maxNamesPerRun);
      if (!read) throw notFound('run');
      // A run without names has no curves, so no source to name.
      if (read.percentiles !== null) reply.header(PERCENTILES_HEADER, read.percentiles);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${`${read.run.service}-${read.run.release}-endpoints.csv`.replace(/[^\w.@-]+/g, '_')}"`)
        .send(nameCurvesCsv(read.names));
    },
  });
};
