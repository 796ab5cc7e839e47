import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, CreatedToken, CreateTokenBody, ListTokensResponse, TokenId, TokenInfo } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';

/** Token management: admin tokens only once tokens are required (see access/auth.ts). */
export const tokenRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { tokens }) => {
  app.post('/tokens', {
    schema: {
      summary: 'Create a token (ingest, write, admin or share; admin only, except that a write token may create share tokens); the secret is in this answer only',
      tags: ['tokens'],
      body: CreateTokenBody,
      response: { 201: CreatedToken, 400: ApiError, 401: ApiError, 403: ApiError },
    },
    handler: async (req, reply) => reply.code(201).send(await tokens.create(req.body)),
  });

  app.get('/tokens', {
    schema: { summary: 'Tokens, revoked ones included (ids and scopes, never secrets)', tags: ['tokens'], response: { 200: ListTokensResponse, 401: ApiError, 403: ApiError } },
    handler: async () => ({ tokens: await tokens.list() }),
  });

  app.delete('/tokens/:id', {
    schema: {
      summary: 'Revoke a token; it stops working at once on this API process, within 5 s on others',
      description: 'The admin token KNEEBOARD_ADMIN_TOKEN sets (id `env_admin`) is revoked only with `?confirm=KNEEBOARD_ADMIN_TOKEN`: a restart with the same value does not bring it back.',
      tags: ['tokens'],
      params: z.object({ id: TokenId }),
      querystring: z.object({ confirm: z.string().max(100).optional().meta({ description: "the token's name, required to revoke env_admin" }) }),
      response: { 200: TokenInfo, 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError },
    },
    handler: async (req) => {
      const revoked = await tokens.revoke(req.params.id, req.query.confirm);
      if (!revoked) throw notFound('token');
      return revoked;
    },
  });
};
