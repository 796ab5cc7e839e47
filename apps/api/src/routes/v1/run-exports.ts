import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PercentilesQuery, percentilesWanted, SloParam, SvgViewQuery } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { curveCsv } from '../../services/curve-csv.ts';
import { runCurveSvg } from '../../services/curve-svg.ts';
import { runCapacity } from '../../services/run-capacity.ts';
import { requireRunDetail } from '../../services/run-detail.ts';
import { IdParams } from './runs.ts';

/** Files have no body field to say it: a header tells where the percentiles came from. */
const PERCENTILES_HEADER = 'kneeboard-percentiles';

/** A run's curve in forms for elsewhere: an embeddable SVG and a CSV for spreadsheets. */
export const runExportRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.get('/runs/:id/curve.svg', {
    schema: {
      summary: "The run's curve as an embeddable SVG (throughput and latency against level, knee marked); metrics, levels and y as in the web app's URLs",
      tags: ['runs'],
      params: IdParams,
      querystring: SvgViewQuery.extend(PercentilesQuery.shape),
      produces: ['image/svg+xml'],
    },
    handler: async (req, reply) => {
      const detail = await requireRunDetail(db, req.params.id, 'id', percentilesWanted(req.query));
      return reply
        .type('image/svg+xml; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header(PERCENTILES_HEADER, detail.percentiles ?? 'rollup')
        .send(runCurveSvg(detail, req.query));
    },
  });

  app.get('/runs/:id/curve.csv', {
    schema: {
      summary: "The run's curve as CSV, one row per level; with `slo=`, each level's capacity judgement under those SLOs",
      tags: ['runs'],
      params: IdParams,
      querystring: PercentilesQuery.extend({ slo: SloParam.optional() }),
      produces: ['text/csv'],
    },
    handler: async (req, reply) => {
      const detail = await requireRunDetail(db, req.params.id, 'id', percentilesWanted(req.query));
      const capacity = req.query.slo ? await runCapacity(db, detail, req.query.slo) : undefined;
      return reply
        .type('text/csv; charset=utf-8')
        .header(PERCENTILES_HEADER, detail.percentiles ?? 'rollup')
        .header('content-disposition', `attachment; filename="${`${detail.run.service}-${detail.run.release}-curve.csv`.replace(/[^\w.@-]+/g, '_')}"`)
        .send(curveCsv(detail, capacity));
    },
  });
};
