/**
 * Server-side reads from the Kneeboard API (server components call these so a shared link renders
 * with data). Responses are parsed with the contracts' zod schemas, never cast.
 */
import { ListRunsResponse, RunDetail, type RunSummary } from '@kneeboard/contracts';
import { serverEnv } from './env.ts';
import { runsFilterQuery, type RunsFilter } from './runs-filter.ts';

/** The API could not be reached or answered with something we cannot use. */
export class ApiUnavailableError extends Error {
  constructor(
    message: string,
    readonly apiUrl: string,
  ) {
    super(message);
    this.name = 'ApiUnavailableError';
  }
}

const TIMEOUT_MS = 5000;

async function getJson(path: string): Promise<{ status: number; body: unknown }> {
  const base = serverEnv().KNEEBOARD_API_URL;
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, { cache: 'no-store', signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
  } catch (err) {
    throw new ApiUnavailableError(`Cannot reach the Kneeboard API at ${base}: ${(err as Error).message}`, base);
  }
  let body: unknown = null;
  try {
    body = await res.json();
  } catch (err) {
    throw new ApiUnavailableError(`GET ${path} answered ${res.status} with a body that is not JSON: ${(err as Error).message}`, base);
  }
  return { status: res.status, body };
}

function describe(body: unknown): string {
  if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string') return body.message;
  return JSON.stringify(body).slice(0, 200);
}

export async function listRuns(filter: RunsFilter, limit = 200): Promise<RunSummary[]> {
  const q = runsFilterQuery(filter);
  const path = `/api/v1/runs${q}${q ? '&' : '?'}limit=${limit}`;
  const { status, body } = await getJson(path);
  if (status !== 200) throw new ApiUnavailableError(`GET ${path} answered ${status}: ${describe(body)}`, serverEnv().KNEEBOARD_API_URL);
  const parsed = ListRunsResponse.safeParse(body);
  if (!parsed.success) throw new ApiUnavailableError(`GET ${path}: unexpected response shape: ${parsed.error.message}`, serverEnv().KNEEBOARD_API_URL);
  return parsed.data.runs;
}

/** The run's detail, or null when the API says 404. */
export async function getRun(id: string): Promise<RunDetail | null> {
  const path = `/api/v1/runs/${encodeURIComponent(id)}`;
  const { status, body } = await getJson(path);
  if (status === 404) return null;
  if (status !== 200) throw new ApiUnavailableError(`GET ${path} answered ${status}: ${describe(body)}`, serverEnv().KNEEBOARD_API_URL);
  const parsed = RunDetail.safeParse(body);
  if (!parsed.success) throw new ApiUnavailableError(`GET ${path}: unexpected response shape: ${parsed.error.message}`, serverEnv().KNEEBOARD_API_URL);
  return parsed.data;
}
