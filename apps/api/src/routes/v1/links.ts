import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createLink, resolveLink } from '@kneeboard/clickhouse';
import { ENDPOINTS } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { routeOf } from '../endpoint-route.ts';

export const linkRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.route({
    ...routeOf(ENDPOINTS.createLink),
    handler: async (req, reply) => reply.code(201).send({ code: await createLink(db, req.body.path), path: req.body.path }),
  });

  app.route({
    ...routeOf(ENDPOINTS.getLink),
    handler: async (req) => {
      const path = await resolveLink(db, req.params.code);
      if (path === null) throw notFound('link', 'code');
      return { code: req.params.code, path };
    },
  });
};
