import { ListRunsResponse, RunId } from '@kneeboard/contracts';

export class CompareError extends Error {}

/** fetch, with a network failure turned into a message that names the API and the cause. */
export async function fetchOrExplain(url: string, api: string, token?: string): Promise<Response> {
  try {
    return await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  } catch (err) {
    const code = err instanceof Error && err.cause instanceof Error && 'code' in err.cause ? String(err.cause.code) : String(err);
    throw new CompareError(`cannot reach the Kneeboard API at ${api} (${code})`);
  }
}

/**
 * A run given as an id is used as is; a release label means the newest finished run of that
 * release of the service — the run CI just made, or the one the last release shipped with.
 */
export async function resolveRun(api: string, ref: string, service: string | undefined, flag: string, token?: string): Promise<string> {
  if (RunId.safeParse(ref).success) return ref;
  if (!service) throw new CompareError(`${flag} ${ref} is a release label, not a run id: give --service too`);
  const url = `${api}/api/v1/runs?${new URLSearchParams({ service, release: ref, status: 'finished', limit: '1' })}`;
  const res = await fetchOrExplain(url, api, token);
  if (!res.ok) throw new CompareError(`listing runs failed: ${res.status} ${await res.text()}`);
  const run = ListRunsResponse.parse(await res.json()).runs[0];
  if (!run) throw new CompareError(`${flag}: no finished run of ${service} ${ref}`);
  return run.id;
}
