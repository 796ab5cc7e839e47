import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getRun, queryRunTimeline } from '@kneeboard/clickhouse';
import { ENDPOINTS } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { routeOf } from '../endpoint-route.ts';

export const timelineRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.route({
    ...routeOf(ENDPOINTS.runTimeline),
    handler: async (req) => {
      const { id } = req.params;
      const [run, timeline] = await Promise.all([getRun(db, id), queryRunTimeline(db, id)]);
      if (!run) throw notFound('run');
      return timeline;
    },
  });
};
