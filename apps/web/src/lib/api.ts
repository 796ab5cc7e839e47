/**
 * Server-side reads from the Kneeboard API (server components call these so a shared link renders
 * with data). Fetching, parsing with the contracts' schemas and reading errors is the shared core's
 * (@kneeboard/api-client); the credential, caching and what a failure means for a page are this file's.
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
import { ApiHttpError, ApiNetworkError, ApiShapeError, describeStatus, fetchApi } from '@kneeboard/api-client';
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

/**
 * GET through the shared core (@kneeboard/api-client) with what only this server adds: the
 * request's credential, no Next.js caching, a timeout, and 401/403 as the app's own pages.
 */
async function get<T>(path: string, schema: z.ZodType<T>): Promise<T> {
  const { KNEEBOARD_API_URL: base } = serverEnv();
  const credential = await requestCredential();
  const headers: Record<string, string> = credential.kind !== 'none' ? { authorization: `Bearer ${credential.token}` } : {};
  try {
    return await fetchApi(`${base}${path}`, schema, { headers, init: { cache: 'no-store', signal: AbortSignal.timeout(TIMEOUT_MS) } });
  } catch (err) {
    // No token, a revoked or expired one, or a share link asked for more than its view: the app's
    // unauthorized.tsx / forbidden.tsx pages say which, with the right status.
    if (err instanceof ApiHttpError && err.status === 401) unauthorized();
    if (err instanceof ApiHttpError && err.status === 403) forbidden();
    throw err;
  }
}

/**
 * A failure of the core client as the page's ApiUnavailableError (the error page names the API's
 * address). Anything else — above all Next.js's own unauthorized()/forbidden() signals — passes
 * through untouched, or the app's 401/403 pages would never show.
 */
function unavailable(err: unknown): unknown {
  const base = serverEnv().KNEEBOARD_API_URL;
  if (err instanceof ApiNetworkError) return new ApiUnavailableError(`Cannot reach the Kneeboard API at ${base}: ${err.message}`, base);
  if (err instanceof ApiHttpError || err instanceof ApiShapeError) return new ApiUnavailableError(err.message, base);
  return err;
}

/** GET and parse; null on 404 (when allowed); anything else unexpected is an ApiUnavailableError. */
async function getParsed<T>(path: string, schema: z.ZodType<T>, allow404: boolean): Promise<T | null> {
  try {
    return await get(path, schema);
  } catch (err) {
    if (err instanceof ApiHttpError && err.status === 404 && allow404) return null;
    throw unavailable(err);
  }
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
  try {
    return { ok: true, report: await get(`/api/v1/compare${compareApiQuery(state)}`, CompareResponse) };
  } catch (err) {
    if (err instanceof ApiHttpError && (err.status === 400 || err.status === 404)) return { ok: false, error: err.body?.message ?? describeStatus(err.status, err.body) };
    throw unavailable(err);
  }
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
