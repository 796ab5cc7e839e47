/**
 * Server-side token management against the API, with the credential of the browser asking
 * (see credentials.ts). Fetch, parse and errors are the shared core's (@kneeboard/api-client); a
 * refusal becomes a result with a sentence here.
 */
import { ApiHttpError, ApiNetworkError, ApiShapeError, callApi, type CallInput } from '@kneeboard/api-client';
import { ENDPOINTS, type CreateTokenBody, type EndpointSpec, type SuccessOf, type TokenInfo } from '@kneeboard/contracts';
import type { Credential } from './credentials.ts';
import { serverEnv } from './env.ts';

export type TokenApiResult<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

async function call<E extends EndpointSpec>(ep: E, input: CallInput<E>, credential: Credential): Promise<TokenApiResult<SuccessOf<E>>> {
  const { KNEEBOARD_API_URL: base } = serverEnv();
  const token = credential.kind !== 'none' ? credential.token : undefined;
  try {
    return { ok: true, value: await callApi(ep, input, { baseUrl: base, token, init: { cache: 'no-store', signal: AbortSignal.timeout(5000) } }) };
  } catch (err) {
    if (err instanceof ApiNetworkError) return { ok: false, status: 0, message: `cannot reach the Kneeboard API at ${base}: ${err.message}` };
    if (err instanceof ApiHttpError) return { ok: false, status: err.status, message: err.body?.message ?? `HTTP ${err.status}` };
    // A 2xx that is not what the contracts promise: a bad answer from upstream, as a gateway would call it.
    if (err instanceof ApiShapeError) return { ok: false, status: 502, message: err.message };
    throw err;
  }
}

export async function listTokens(credential: Credential): Promise<TokenApiResult<TokenInfo[]>> {
  const res = await call(ENDPOINTS.listTokens, {}, credential);
  return res.ok ? { ok: true, value: res.value.tokens } : res;
}

export const createToken = (body: CreateTokenBody, credential: Credential) => call(ENDPOINTS.createToken, { body }, credential);

/** `confirm`: the token's name, which the API asks for to revoke the bootstrap admin token. */
export const revokeToken = (id: string, credential: Credential, confirm?: string) =>
  call(ENDPOINTS.revokeToken, { params: { id }, query: { confirm } }, credential);
