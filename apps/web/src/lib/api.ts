/**
 * Server-side reads from the Kneeboard API (server components call these so a shared link renders
 * with data). Fetching, parsing with the contracts' schemas and reading errors is the shared core's
 * (@kneeboard/api-client); the credential, caching and what a failure means for a page are this file's.
 */
import {
  ENDPOINTS,
  MAX_RUNS_PER_GROUP,
  type CompareResponse,
  type EndpointSpec,
  type LevelDetail,
  type Link,
  type RunDetail,
  type RunNameCurves,
  type RunSummary,
  type ServiceReleasesResponse,
  type ServiceSummary,
  type SuccessOf,
} from '@kneeboard/contracts';
import { ApiHttpError, ApiNetworkError, ApiShapeError, callApi, describeStatus, type CallInput } from '@kneeboard/api-client';
import { forbidden, unauthorized } from 'next/navigation';
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
async function get<E extends EndpointSpec>(ep: E, input: CallInput<E>): Promise<SuccessOf<E>> {
  const { KNEEBOARD_API_URL: base } = serverEnv();
  const credential = await requestCredential();
  const token = credential.kind !== 'none' ? credential.token : undefined;
  try {
    return await callApi(ep, input, { baseUrl: base, token, init: { cache: 'no-store', signal: AbortSignal.timeout(TIMEOUT_MS) } });
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
async function getParsed<E extends EndpointSpec>(ep: E, input: CallInput<E>, allow404: boolean): Promise<SuccessOf<E> | null> {
  try {
    return await get(ep, input);
  } catch (err) {
    if (err instanceof ApiHttpError && err.status === 404 && allow404) return null;
    throw unavailable(err);
  }
}

export async function listRuns(filter: RunsFilter, limit = 200): Promise<RunSummary[]> {
  const query = new URLSearchParams(runsFilterQuery(filter));
  query.set('limit', String(limit));
  const res = await getParsed(ENDPOINTS.listRuns, { query }, false);
  return res?.runs ?? [];
}

/**
 * `release:SERVICE@RELEASE` as the API's compare endpoint reads it: the release's finished runs,
 * newest first, at most MAX_RUNS_PER_GROUP (empty when it has none).
 */
export async function listReleaseRunIds(service: string, release: string): Promise<string[]> {
  const res = await getParsed(ENDPOINTS.listRuns, { query: { service, release, status: 'finished', limit: MAX_RUNS_PER_GROUP } }, false);
  return (res?.runs ?? []).map((r) => r.id);
}

/** The run's detail (with `name`: that request name's curve), or null when the API says 404 (no such run, or no such name in it). */
export async function getRun(id: string, name?: string): Promise<RunDetail | null> {
  return getParsed(ENDPOINTS.getRun, { params: { id }, query: name === undefined ? {} : { name } }, true);
}

/**
 * Every request name's curve (the run page's small multiples), or null when it cannot be had: the
 * page then leaves the multiples out rather than failing (the run itself was read already).
 */
export async function getNameCurves(id: string): Promise<RunNameCurves | null> {
  try {
    return await getParsed(ENDPOINTS.runNameCurves, { params: { id } }, true);
  } catch (err) {
    if (err instanceof ApiUnavailableError) return null;
    throw err;
  }
}

/** Inside one level of a run, for a link that opens its panel (`?level=8`); null on 404. */
export async function getLevelDetail(id: string, level: number): Promise<LevelDetail | null> {
  return getParsed(ENDPOINTS.runLevel, { params: { id, level } }, true);
}

/**
 * The comparison's statistics, or the API's reason when it refuses (400: a bad query; 404: a run
 * it does not know). The page still draws the curves without them. `slo`: the SLOs its capacity
 * is judged at (by default the URL's).
 */
export async function getCompare(state: CompareViewState, slo?: string | null): Promise<{ ok: true; report: CompareResponse } | { ok: false; error: string }> {
  try {
    return { ok: true, report: await get(ENDPOINTS.compare, { query: new URLSearchParams(compareApiQuery(state, slo)) }) };
  } catch (err) {
    if (err instanceof ApiHttpError && (err.status === 400 || err.status === 404)) return { ok: false, error: err.body?.message ?? describeStatus(err.status, err.body) };
    throw unavailable(err);
  }
}

export async function listServices(): Promise<ServiceSummary[]> {
  return (await getParsed(ENDPOINTS.listServices, {}, false))?.services ?? [];
}

export async function getServiceReleases(service: string): Promise<ServiceReleasesResponse> {
  const res = await getParsed(ENDPOINTS.serviceReleases, { params: { service } }, false);
  return res ?? { service, releases: [] };
}

/** The path a short link stands for, or null when the code is unknown. */
export async function resolveLink(code: string): Promise<Link | null> {
  return getParsed(ENDPOINTS.getLink, { params: { code } }, true);
}
