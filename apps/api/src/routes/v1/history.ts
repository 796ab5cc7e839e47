import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ENDPOINTS } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { loadServiceHistory } from '../../services/service-history.ts';
import { routeOf } from '../endpoint-route.ts';

export const historyRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.route({
    ...routeOf(ENDPOINTS.serviceHistory),
    handler: async (req) => {
      const history = await loadServiceHistory(db, req.params.service);
      if (!history) throw notFound('service', 'service');
      return history;
    },
  });
};
