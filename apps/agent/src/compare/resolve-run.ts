import { ApiHttpError, ApiNetworkError, authorization, endpointUrl, fetchApi } from '@kneeboard/api-client';
import { describeCause } from '@kneeboard/agent-sdk';
import { ENDPOINTS, ListRunsResponse, RunId } from '@kneeboard/contracts';
import type { z } from 'zod';

export class CompareError extends Error {}

/**
 * One GET through the shared core (@kneeboard/api-client), parsed with the contracts' schema; an
 * unreachable API or a refusal becomes a CompareError naming the API or the API's own words.
 */
export async function getOrExplain<T>(url: string, api: string, schema: z.ZodType<T>, what: string, token?: string): Promise<T> {
  try {
    return await fetchApi(url, schema, { headers: authorization(token) });
  } catch (err) {
    if (err instanceof ApiNetworkError) throw new CompareError(`cannot reach the Kneeboard API at ${api} (${describeCause(err.cause)})`);
    if (err instanceof ApiHttpError) throw new CompareError(`${what} failed: ${err.body?.message ?? `HTTP ${err.status}`}`);
    throw err;
  }
}

/**
 * A run given as an id is used as is; a release label means the newest finished run of that
 * release of the service — the run CI just made, or the one the last release shipped with.
 */
export async function resolveRun(api: string, ref: string, service: string | undefined, flag: string, token?: string): Promise<string> {
  if (RunId.safeParse(ref).success) return ref;
  if (!service) throw new CompareError(`${flag} ${ref} is a release label, not a run id: give --service too`);
  const url = endpointUrl(ENDPOINTS.listRuns, { query: { service, release: ref, status: 'finished', limit: 1 } }, api);
  const run = (await getOrExplain(url, api, ListRunsResponse, 'listing runs', token)).runs[0];
  if (!run) throw new CompareError(`${flag}: no finished run of ${service} ${ref}`);
  return run.id;
}
