/**
 * Server-side token management against the API, with the credential of the browser asking
 * (see credentials.ts). Answers are parsed with the contracts' schemas; a refusal is a sentence.
 */
import { CreatedToken, ListTokensResponse, TokenInfo, type CreateTokenBody } from '@kneeboard/contracts';
import type { z } from 'zod';
import type { Credential } from './credentials.ts';
import { serverEnv } from './env.ts';

export type TokenApiResult<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

async function call<T>(method: string, path: string, credential: Credential, schema: z.ZodType<T>, body?: unknown): Promise<TokenApiResult<T>> {
  const { KNEEBOARD_API_URL: base } = serverEnv();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (credential.kind !== 'none') headers.authorization = `Bearer ${credential.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, { method, headers, cache: 'no-store', signal: AbortSignal.timeout(5000), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  } catch (err) {
    return { ok: false, status: 0, message: `cannot reach the Kneeboard API at ${base}: ${(err as Error).message}` };
  }
  const json: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const message = json && typeof json === 'object' && 'message' in json && typeof json.message === 'string' ? json.message : `HTTP ${res.status}`;
    return { ok: false, status: res.status, message };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, status: res.status, message: `${method} ${path}: unexpected response shape` };
}

export async function listTokens(credential: Credential): Promise<TokenApiResult<TokenInfo[]>> {
  const res = await call('GET', '/api/v1/tokens', credential, ListTokensResponse);
  return res.ok ? { ok: true, value: res.value.tokens } : res;
}

export const createToken = (body: CreateTokenBody, credential: Credential) => call('POST', '/api/v1/tokens', credential, CreatedToken, body);

export const revokeToken = (id: string, credential: Credential) => call('DELETE', `/api/v1/tokens/${encodeURIComponent(id)}`, credential, TokenInfo);
