import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describeStorage } from '@kneeboard/clickhouse';
import type { RouteDeps } from '../deps.ts';

export const healthRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.get('/healthz', {
    schema: {
      summary: 'Liveness and storage reachability',
      tags: ['health'],
      response: { 200: z.object({ ok: z.boolean(), storage: z.string() }), 503: z.object({ ok: z.boolean(), storage: z.string() }) },
    },
    handler: async (_req, reply) => {
      const ping = await db.client.ping();
      return reply.code(ping.success ? 200 : 503).send({ ok: ping.success, storage: describeStorage(db.config) });
    },
  });
};
