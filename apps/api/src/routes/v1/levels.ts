import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getRun, queryLevelDetail } from '@kneeboard/clickhouse';
import { ENDPOINTS } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { routeOf } from '../endpoint-route.ts';

export const levelRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.route({
    ...routeOf(ENDPOINTS.runLevel),
    handler: async (req) => {
      const { id, level } = req.params;
      const [run, detail] = await Promise.all([getRun(db, id), queryLevelDetail(db, id, level)]);
      if (!run) throw notFound('run');
      if (!detail) throw notFound(`level ${level} of this run`, 'level');
      return detail;
    },
  });
};
