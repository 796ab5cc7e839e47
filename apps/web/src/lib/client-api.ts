/**
 * Browser-side calls to the API through the dashboard's own origin (`/api/…`, see proxy.ts):
 * short links, run labels and notes, and the comparison as Markdown. Fetching, parsing with the
 * contracts' schemas and reading errors is the shared core's (@kneeboard/api-client, browser-safe);
 * its errors are already one readable sentence (`PATCH /api/…/runs/x → 400: … (field label)`).
 */
import { ApiHttpError, callApi, callApiText, describeStatus } from '@kneeboard/api-client';
import { ENDPOINTS, type CompareResponse, type LevelDetail, type Link, type Run, type RunTimeline, type UpdateRunBody } from '@kneeboard/contracts';

/** Stores a short link to a view path (`/compare?…`); the app serves it at `/s/{code}`. */
export function createShortLink(path: string): Promise<Link> {
  return callApi(ENDPOINTS.createLink, { body: { path } });
}

export function updateRun(id: string, body: UpdateRunBody): Promise<Run> {
  return callApi(ENDPOINTS.updateRun, { params: { id }, body });
}

/** The comparison as Markdown for a pull request, linking back to this view (with its settings) on this origin. */
export function fetchCompareMarkdown(apiQuery: string, origin: string, view: string): Promise<string> {
  const query = new URLSearchParams(apiQuery);
  query.set('web', origin);
  query.set('view', view);
  return callApiText(ENDPOINTS.compareMarkdown, { query }, { headers: { accept: 'text/markdown' } });
}

/** The comparison's statistics again (ENDPOINTS.compare), e.g. after min_effect changed; a 400/404 is a sentence, not a throw. */
export async function fetchCompare(apiQuery: string): Promise<{ ok: true; report: CompareResponse } | { ok: false; error: string }> {
  try {
    return { ok: true, report: await callApi(ENDPOINTS.compare, { query: new URLSearchParams(apiQuery) }) };
  } catch (err) {
    if (err instanceof ApiHttpError && (err.status === 400 || err.status === 404)) return { ok: false, error: describeStatus(err.status, err.body) };
    throw err;
  }
}

/** Inside one level of a run (ENDPOINTS.runLevel); a 404 (no such level) is null. */
export async function fetchLevelDetail(runId: string, level: number): Promise<LevelDetail | null> {
  try {
    return await callApi(ENDPOINTS.runLevel, { params: { id: runId, level } });
  } catch (err) {
    if (err instanceof ApiHttpError && err.status === 404) return null;
    throw err;
  }
}

/** The whole run against wall-clock time (ENDPOINTS.runTimeline). */
export function fetchRunTimeline(runId: string): Promise<RunTimeline> {
  return callApi(ENDPOINTS.runTimeline, { params: { id: runId } }, { init: { cache: 'no-store' } });
}
