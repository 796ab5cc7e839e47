import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CompareQuery, PercentilesQuery, percentilesWanted, SvgViewQuery } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { compareCurveSvg, runCurveSvg } from '../../services/curve-svg.ts';
import { svgToPng } from '../../services/png.ts';
import { requireRunDetail } from '../../services/run-detail.ts';
import { IdParams } from './runs.ts';

/** Pixels per SVG unit: 2 by default, sharp on high-density screens; 1–3. */
const PngScale = z.object({
  scale: z.coerce.number().int('must be a whole number').min(1).max(3).optional().describe('pixels per SVG unit, 1–3 (default 2)'),
});

/** The same charts as curve.svg and compare.svg, as PNG for places that will not show SVG. */
export const pngEmbedRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, comparisons }) => {
  app.get('/runs/:id.png', {
    schema: {
      summary: "The run's curve as a PNG (the curve.svg drawing, rasterised); metrics, levels and y as in the web app's URLs",
      tags: ['runs'],
      params: IdParams,
      querystring: SvgViewQuery.extend(PercentilesQuery.shape).extend(PngScale.shape),
      produces: ['image/png'],
    },
    handler: async (req, reply) => {
      const detail = await requireRunDetail(db, req.params.id, 'id', percentilesWanted(req.query));
      return reply.type('image/png').header('cache-control', 'no-cache').send(svgToPng(runCurveSvg(detail, req.query), req.query.scale ?? 2));
    },
  });

  app.get('/compare.png', {
    schema: {
      summary: 'The comparison overlay as a PNG (the compare.svg drawing, rasterised)',
      tags: ['compare'],
      querystring: CompareQuery.extend(SvgViewQuery.shape).extend(PngScale.shape),
      produces: ['image/png'],
    },
    handler: async (req, reply) => {
      // Through the comparison guard like compare.svg: the same caps, queue and cache.
      const { report, details } = (await comparisons.compareQuery(req.query)).result;
      const summary = report.heads.map((h) => h.overall.summary).join(' ');
      return reply.type('image/png').header('cache-control', 'no-cache').send(svgToPng(compareCurveSvg(details, summary, req.query), req.query.scale ?? 2));
    },
  });
};
