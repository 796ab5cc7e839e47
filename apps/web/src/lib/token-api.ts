/**
 * Server-side token management against the API, with the credential of the browser asking
 * (see credentials.ts and credential-call.ts).
 */
import { ENDPOINTS, type CreateTokenBody, type TokenInfo } from '@kneeboard/contracts';
import { callWithCredential, type CallResult } from './credential-call.ts';
import type { Credential } from './credentials.ts';

export type TokenApiResult<T> = CallResult<T>;

/** Token reads and writes are quick: a page does not wait long for an API that does not answer. */
const TIMEOUT_MS = 5_000;

export async function listTokens(credential: Credential): Promise<TokenApiResult<TokenInfo[]>> {
  const res = await callWithCredential(ENDPOINTS.listTokens, {}, credential, TIMEOUT_MS);
  return res.ok ? { ok: true, value: res.value.tokens } : res;
}

export const createToken = (body: CreateTokenBody, credential: Credential) => callWithCredential(ENDPOINTS.createToken, { body }, credential, TIMEOUT_MS);

/** `confirm`: the token's name, which the API asks for to revoke the bootstrap admin token. */
export const revokeToken = (id: string, credential: Credential, confirm?: string) =>
  callWithCredential(ENDPOINTS.revokeToken, { params: { id }, query: { confirm } }, credential, TIMEOUT_MS);
