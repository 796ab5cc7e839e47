import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ENDPOINTS } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { loadServiceHistory, type HistoryTimings } from '../../services/service-history.ts';
import { routeOf } from '../endpoint-route.ts';

export const historyRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.route({
    ...routeOf(ENDPOINTS.serviceHistory),
    handler: async (req, reply) => {
      const timings: HistoryTimings = {};
      const history = await loadServiceHistory(db, req.params.service, timings);
      if (!history) throw notFound('service', 'service');
      // W3C Server-Timing: what this read cost, phase by phase (a kept answer has no features or series phase).
      reply.header('server-timing', Object.entries(timings).map(([phase, ms]) => `${phase};dur=${Math.round(ms * 10) / 10}`).join(', '));
      return history;
    },
  });
};
