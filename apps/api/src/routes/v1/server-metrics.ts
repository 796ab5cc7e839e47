import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { runCost } from '@kneeboard/analysis';
import { getRun, insertServerMetrics, listSteps, queryServerMetrics } from '@kneeboard/clickhouse';
import { ENDPOINTS, MAX_SERVER_METRIC_POINTS } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { HttpError, notFound } from '../../errors.ts';
import { orUnavailable } from '../../ingest/storage-failure.ts';
import { loadRunDetail } from '../../services/run-detail.ts';
import { routeOf } from '../endpoint-route.ts';

/** A second may lie this far outside its step's window: the agent's clock and the last scrape's rounding. */
const SECOND_SLACK_S = 60;

/** What the server spent during each step: written by the agent, read as each level's cost. */
export const serverMetricRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, hub, ingest }) => {
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
      await orUnavailable('the server metrics', () => insertServerMetrics(db, id, batch));
      hub.notify(id);
      return { ok: true as const, points: batch.points.length };
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.getRunCost),
    handler: async (req) => {
      const { id } = req.params;
      const [run, detail, metrics] = await Promise.all([getRun(db, id), loadRunDetail(db, id), queryServerMetrics(db, id)]);
      if (!run || !detail) throw notFound('run');
      return runCost({ curve: detail.curve, steps: detail.steps, metrics, knee: detail.analysis.knee?.level ?? null, parameter: run.parameter });
    },
  });
};
