import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { CreatedToken, CreateTokenBody, ListTokensResponse, TokenId, TokenInfo } from '../tokens.ts';
import { API_PREFIX, endpoint } from './endpoint.ts';

/** Token management: admin tokens only once tokens are required, except that a write token may create share tokens. */
export const tokenEndpoints = {
  createToken: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/tokens`,
    scope: 'share-create',
    summary: 'Create a token (ingest, write, admin or share; admin only, except that a write token may create share tokens); the secret is in this answer only',
    tags: ['tokens'],
    body: CreateTokenBody,
    responses: { 201: CreatedToken, 400: ApiError, 401: ApiError, 403: ApiError },
  }),
  listTokens: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/tokens`,
    scope: 'admin',
    summary: 'Tokens, revoked ones included (ids and scopes, never secrets)',
    tags: ['tokens'],
    responses: { 200: ListTokensResponse, 401: ApiError, 403: ApiError },
  }),
  revokeToken: endpoint({
    method: 'DELETE',
    path: `${API_PREFIX}/tokens/:id`,
    scope: 'admin',
    summary: 'Revoke a token; it stops working at once on this API process, within 5 s on others',
    description: 'The admin token KNEEBOARD_ADMIN_TOKEN sets (id `env_admin`) is revoked only with `?confirm=KNEEBOARD_ADMIN_TOKEN`: a restart with the same value does not bring it back.',
    tags: ['tokens'],
    params: z.object({ id: TokenId }),
    query: z.object({ confirm: z.string().max(100).optional().meta({ description: "the token's name, required to revoke env_admin" }) }),
    responses: { 200: TokenInfo, 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError },
  }),
} as const;
