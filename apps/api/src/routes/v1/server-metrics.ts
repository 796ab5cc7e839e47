import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { costMarkdown } from '@kneeboard/analysis';
import { listSteps } from '@kneeboard/clickhouse';
import { ENDPOINTS, MAX_SERVER_METRIC_POINTS } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { HttpError } from '../../errors.ts';
import { orUnavailable } from '../../ingest/storage-failure.ts';
import { runCostSvg } from '../../services/cost-svg.ts';
import { loadRunCost } from '../../services/run-cost.ts';
import { requireRunDetail } from '../../services/run-detail.ts';
import { routeOf } from '../endpoint-route.ts';

/** A second may lie this far outside its step's window: the agent's clock and the last scrape's rounding. */
const SECOND_SLACK_S = 60;

/** What the server spent during each step: written by the agent, read as each level's cost. */
export const serverMetricRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, ingest }) => {
  app.route({
    ...routeOf(ENDPOINTS.postServerMetrics),
    // Before the body is validated point by point: too many points is a 413, not a slow 400.
    preValidation: async (req) => {
      const points = (req.body as { points?: unknown } | undefined)?.points;
      if (Array.isArray(points) && points.length > MAX_SERVER_METRIC_POINTS) {
        throw new HttpError(413, `${points.length} points in one post; at most ${MAX_SERVER_METRIC_POINTS} (post a long step in parts)`, 'points');
      }
    },
    handler: async (req) => {
      const { id } = req.params;
      const batch = req.body;
      await ingest.writableRun(id, 'late server metrics');
      const steps = await orUnavailable('the step windows', () => listSteps(db, id));
      const step = steps.find((s) => s.level === batch.level);
      if (!step) throw new HttpError(400, `the run has no step at level ${batch.level}: post the step window first`, 'level');
      const from = Math.floor(step.started_at / 1000) - SECOND_SLACK_S;
      const to = Math.ceil((step.ended_at ?? Date.now()) / 1000) + SECOND_SLACK_S;
      const outside = batch.points.findIndex((p) => p.second < from || p.second > to);
      if (outside >= 0) throw new HttpError(400, `second ${batch.points[outside]!.second} lies outside level ${batch.level}'s window (±${SECOND_SLACK_S} s)`, `points[${outside}].second`);
      await orUnavailable('the server metrics', () => ingest.recordServerMetrics(id, batch));
      return { ok: true as const, points: batch.points.length };
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.getRunCost),
    handler: async (req) => loadRunCost(db, await requireRunDetail(db, req.params.id)),
  });

  app.route({
    ...routeOf(ENDPOINTS.getRunCostMarkdown),
    handler: async (req, reply) => {
      const detail = await requireRunDetail(db, req.params.id);
      return reply.type('text/markdown; charset=utf-8').send(costMarkdown(await loadRunCost(db, detail), detail.run.parameter));
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.runCostSvg),
    handler: async (req, reply) => {
      const detail = await requireRunDetail(db, req.params.id);
      return reply.type('image/svg+xml; charset=utf-8').header('cache-control', 'no-cache').send(runCostSvg(detail, await loadRunCost(db, detail), req.query));
    },
  });
};
