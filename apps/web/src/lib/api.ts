/**
 * Server-side reads from the Kneeboard API (server components call these so a shared link renders
 * with data). Responses are parsed with the contracts' zod schemas, never cast.
 */
import {
  CompareResponse,
  LevelDetail,
  Link,
  ListRunsResponse,
  ListServicesResponse,
  MAX_RUNS_PER_GROUP,
  RunDetail,
  ServiceReleasesResponse,
  type RunSummary,
  type ServiceSummary,
} from '@kneeboard/contracts';
import { forbidden, unauthorized } from 'next/navigation';
import type { z } from 'zod';
import { serverEnv } from './env.ts';
import { requestCredential } from './server-credentials.ts';
import { runsFilterQuery, type RunsFilter } from './runs-filter.ts';
import { compareApiQuery, type CompareViewState } from './view-state.ts';

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
  const { KNEEBOARD_API_URL: base } = serverEnv();
  const credential = await requestCredential();
  let res: Response;
  try {
    const headers: Record<string, string> = { accept: 'application/json', ...(credential.kind !== 'none' ? { authorization: `Bearer ${credential.token}` } : {}) };
    res = await fetch(`${base}${path}`, { cache: 'no-store', signal: AbortSignal.timeout(TIMEOUT_MS), headers });
  } catch (err) {
    throw new ApiUnavailableError(`Cannot reach the Kneeboard API at ${base}: ${(err as Error).message}`, base);
  }
  // No token, a revoked or expired one, or a share link asked for more than its view: the app's
  // unauthorized.tsx / forbidden.tsx pages say which, with the right status.
  if (res.status === 401) unauthorized();
  if (res.status === 403) forbidden();
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

/** GET and parse; null on 404 (when allowed); anything else unexpected is an ApiUnavailableError. */
async function getParsed<T>(path: string, schema: z.ZodType<T>, allow404: boolean): Promise<T | null> {
  const { status, body } = await getJson(path);
  if (status === 404 && allow404) return null;
  if (status !== 200) throw new ApiUnavailableError(`GET ${path} answered ${status}: ${describe(body)}`, serverEnv().KNEEBOARD_API_URL);
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ApiUnavailableError(`GET ${path}: unexpected response shape: ${parsed.error.message}`, serverEnv().KNEEBOARD_API_URL);
  return parsed.data;
}

export async function listRuns(filter: RunsFilter, limit = 200): Promise<RunSummary[]> {
  const q = runsFilterQuery(filter);
  const res = await getParsed(`/api/v1/runs${q}${q ? '&' : '?'}limit=${limit}`, ListRunsResponse, false);
  return res?.runs ?? [];
}

/**
 * `release:SERVICE@RELEASE` as the API's compare endpoint reads it: the release's finished runs,
 * newest first, at most MAX_RUNS_PER_GROUP (empty when it has none).
 */
export async function listReleaseRunIds(service: string, release: string): Promise<string[]> {
  const q = new URLSearchParams({ service, release, status: 'finished', limit: String(MAX_RUNS_PER_GROUP) });
  const res = await getParsed(`/api/v1/runs?${q}`, ListRunsResponse, false);
  return (res?.runs ?? []).map((r) => r.id);
}

/** The run's detail, or null when the API says 404. */
export async function getRun(id: string): Promise<RunDetail | null> {
  return getParsed(`/api/v1/runs/${encodeURIComponent(id)}`, RunDetail, true);
}

/** Inside one level of a run, for a link that opens its panel (`?level=8`); null on 404. */
export async function getLevelDetail(id: string, level: number): Promise<LevelDetail | null> {
  return getParsed(`/api/v1/runs/${encodeURIComponent(id)}/levels/${encodeURIComponent(String(level))}`, LevelDetail, true);
}

/**
 * The comparison's statistics, or the API's reason when it refuses (400: a bad query; 404: a run
 * it does not know). The page still draws the curves without them.
 */
export async function getCompare(state: CompareViewState): Promise<{ ok: true; report: CompareResponse } | { ok: false; error: string }> {
  const path = `/api/v1/compare${compareApiQuery(state)}`;
  const { status, body } = await getJson(path);
  if (status === 400 || status === 404) return { ok: false, error: describe(body) };
  if (status !== 200) throw new ApiUnavailableError(`GET ${path} answered ${status}: ${describe(body)}`, serverEnv().KNEEBOARD_API_URL);
  const parsed = CompareResponse.safeParse(body);
  if (!parsed.success) throw new ApiUnavailableError(`GET ${path}: unexpected response shape: ${parsed.error.message}`, serverEnv().KNEEBOARD_API_URL);
  return { ok: true, report: parsed.data };
}

export async function listServices(): Promise<ServiceSummary[]> {
  return (await getParsed('/api/v1/services', ListServicesResponse, false))?.services ?? [];
}

export async function getServiceReleases(service: string): Promise<ServiceReleasesResponse> {
  const res = await getParsed(`/api/v1/services/${encodeURIComponent(service)}/releases`, ServiceReleasesResponse, false);
  return res ?? { service, releases: [] };
}

/** The path a short link stands for, or null when the code is unknown. */
export async function resolveLink(code: string): Promise<Link | null> {
  return getParsed(`/api/v1/links/${encodeURIComponent(code)}`, Link, true);
}
