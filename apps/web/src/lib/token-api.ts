/**
 * Server-side token management against the API, with the credential of the browser asking
 * (see credentials.ts). Fetch, parse and errors are the shared core's (@kneeboard/api-client); a
 * refusal becomes a result with a sentence here.
 */
import { ApiHttpError, ApiNetworkError, ApiShapeError, fetchApi } from '@kneeboard/api-client';
import { CreatedToken, ListTokensResponse, TokenInfo, type CreateTokenBody } from '@kneeboard/contracts';
import type { z } from 'zod';
import type { Credential } from './credentials.ts';
import { serverEnv } from './env.ts';

export type TokenApiResult<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

async function call<T>(method: string, path: string, credential: Credential, schema: z.ZodType<T>, body?: unknown): Promise<TokenApiResult<T>> {
  const { KNEEBOARD_API_URL: base } = serverEnv();
  const headers: Record<string, string> = credential.kind !== 'none' ? { authorization: `Bearer ${credential.token}` } : {};
  try {
    return { ok: true, value: await fetchApi(`${base}${path}`, schema, { method, json: body, headers, init: { cache: 'no-store', signal: AbortSignal.timeout(5000) } }) };
  } catch (err) {
    if (err instanceof ApiNetworkError) return { ok: false, status: 0, message: `cannot reach the Kneeboard API at ${base}: ${err.message}` };
    if (err instanceof ApiHttpError) return { ok: false, status: err.status, message: err.body?.message ?? `HTTP ${err.status}` };
    // A 2xx that is not what the contracts promise: a bad answer from upstream, as a gateway would call it.
    if (err instanceof ApiShapeError) return { ok: false, status: 502, message: err.message };
    throw err;
  }
}

export async function listTokens(credential: Credential): Promise<TokenApiResult<TokenInfo[]>> {
  const res = await call('GET', '/api/v1/tokens', credential, ListTokensResponse);
  return res.ok ? { ok: true, value: res.value.tokens } : res;
}

export const createToken = (body: CreateTokenBody, credential: Credential) => call('POST', '/api/v1/tokens', credential, CreatedToken, body);

/** `confirm`: the token's name, which the API asks for to revoke the bootstrap admin token. */
export const revokeToken = (id: string, credential: Credential, confirm?: string) =>
  call('DELETE', `/api/v1/tokens/${encodeURIComponent(id)}${confirm === undefined ? '' : `?confirm=${encodeURIComponent(confirm)}`}`, credential, TokenInfo);
