import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ENDPOINTS } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { routeOf } from '../endpoint-route.ts';

/** Token management: admin tokens only once tokens are required (see access/auth.ts). */
export const tokenRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { tokens }) => {
  app.route({
    ...routeOf(ENDPOINTS.createToken),
    handler: async (req, reply) => reply.code(201).send(await tokens.create(req.body)),
  });

  app.route({
    ...routeOf(ENDPOINTS.listTokens),
    handler: async () => ({ tokens: await tokens.list() }),
  });

  app.route({
    ...routeOf(ENDPOINTS.revokeToken),
    handler: async (req) => {
      const revoked = await tokens.revoke(req.params.id, req.query.confirm);
      if (!revoked) throw notFound('token');
      return revoked;
    },
  });
};
