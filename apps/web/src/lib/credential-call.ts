/**
 * A server-side call to an endpoint of the table with the credential of the browser asking (see
 * credentials.ts). Fetch, parse and errors are the shared core's (@kneeboard/api-client); a
 * refusal becomes a result with a sentence, for a form to show.
 */
import { ApiHttpError, ApiNetworkError, ApiShapeError, callApi, type CallInput } from '@kneeboard/api-client';
import type { EndpointSpec, SuccessOf } from '@kneeboard/contracts';
import type { Credential } from './credentials.ts';
import { serverEnv } from './env.ts';

export type CallResult<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

/** `timeoutMs`: a page's read waits little; a webhook test waits for the receiver's answer (the API gives it 10 s). */
export async function callWithCredential<E extends EndpointSpec>(ep: E, input: CallInput<E>, credential: Credential, timeoutMs = 15_000): Promise<CallResult<SuccessOf<E>>> {
  const { KNEEBOARD_API_URL: base } = serverEnv();
  try {
    const token = credential.kind === 'none' ? null : credential.token;
    return { ok: true, value: await callApi(ep, input, { baseUrl: base, token, init: { cache: 'no-store', signal: AbortSignal.timeout(timeoutMs) } }) };
  } catch (err) {
    if (err instanceof ApiNetworkError) return { ok: false, status: 0, message: `cannot reach the Kneeboard API at ${base}: ${err.message}` };
    if (err instanceof ApiHttpError) return { ok: false, status: err.status, message: err.body?.message ?? `HTTP ${err.status}` };
    // A 2xx that is not what the contracts promise: a bad answer from upstream, as a gateway would call it.
    if (err instanceof ApiShapeError) return { ok: false, status: 502, message: err.message };
    throw err;
  }
}
