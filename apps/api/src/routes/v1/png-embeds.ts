import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ENDPOINTS, percentilesWanted } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { runCostSvg } from '../../services/cost-svg.ts';
import { compareCurveSvg, runCurveSvg } from '../../services/curve-svg.ts';
import { svgToPng } from '../../services/png.ts';
import { runCapacity } from '../../services/run-capacity.ts';
import { loadRunCost } from '../../services/run-cost.ts';
import { requireRunDetail } from '../../services/run-detail.ts';
import { routeOf } from '../endpoint-route.ts';

/** The same charts as curve.svg, cost.svg and compare.svg, as PNG for places that will not show SVG. */
export const pngEmbedRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, comparisons }) => {
  app.route({
    ...routeOf(ENDPOINTS.runPng),
    handler: async (req, reply) => {
      const detail = await requireRunDetail(db, req.params.id, 'id', percentilesWanted(req.query));
      const capacity = req.query.slo ? await runCapacity(db, detail, req.query.slo) : undefined;
      return reply.type('image/png').header('cache-control', 'no-cache').send(svgToPng(runCurveSvg(detail, req.query, capacity), req.query.scale ?? 2));
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.runCostPng),
    handler: async (req, reply) => {
      const detail = await requireRunDetail(db, req.params.id);
      return reply.type('image/png').header('cache-control', 'no-cache').send(svgToPng(runCostSvg(detail, await loadRunCost(db, detail), req.query), req.query.scale ?? 2));
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.comparePng),
    handler: async (req, reply) => {
      // Through the comparison guard like compare.svg: the same caps, queue and cache.
      const { report, details } = (await comparisons.compareQuery(req.query)).result;
      const summary = report.heads.map((h) => h.overall.summary).join(' ');
      return reply.type('image/png').header('cache-control', 'no-cache').send(svgToPng(compareCurveSvg(details, summary, req.query), req.query.scale ?? 2));
    },
  });
};
