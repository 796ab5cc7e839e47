import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createLink, resolveLink } from '@kneeboard/clickhouse';
import { ApiError, CreateLinkBody, Link, LinkCode } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';

export const linkRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.post('/links', {
    schema: { summary: "Store a short link to a view's full URL path", tags: ['links'], body: CreateLinkBody, response: { 201: Link, 400: ApiError } },
    handler: async (req, reply) => reply.code(201).send({ code: await createLink(db, req.body.path), path: req.body.path }),
  });

  app.get('/links/:code', {
    schema: { summary: 'Resolve a short link', tags: ['links'], params: z.object({ code: LinkCode }), response: { 200: Link, 404: ApiError } },
    handler: async (req) => {
      const path = await resolveLink(db, req.params.code);
      if (path === null) throw notFound('link', 'code');
      return { code: req.params.code, path };
    },
  });
};
