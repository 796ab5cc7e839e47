/**
 * Browser-side calls to the API through the dashboard's own origin (`/api/…`, see proxy.ts):
 * short links, run labels and notes, and the comparison as Markdown. Fetching, parsing with the
 * contracts' schemas and reading errors is the shared core's (@kneeboard/api-client, browser-safe);
 * its errors are already one readable sentence (`PATCH /api/v1/runs/x → 400: … (field label)`).
 */
import { ApiHttpError, describeStatus, fetchApi, fetchApiText } from '@kneeboard/api-client';
import { CompareResponse, LevelDetail, Link, Run, RunTimeline, type UpdateRunBody } from '@kneeboard/contracts';

/** Stores a short link to a view path (`/compare?…`); the app serves it at `/s/{code}`. */
export function createShortLink(path: string): Promise<Link> {
  return fetchApi('/api/v1/links', Link, { method: 'POST', json: { path } });
}

export function updateRun(id: string, body: UpdateRunBody): Promise<Run> {
  return fetchApi(`/api/v1/runs/${encodeURIComponent(id)}`, Run, { method: 'PATCH', json: body });
}

/** The comparison as Markdown for a pull request, linking back to this view (with its settings) on this origin. */
export function fetchCompareMarkdown(apiQuery: string, origin: string, view: string): Promise<string> {
  const path = `/api/v1/compare.md${apiQuery}${apiQuery ? '&' : '?'}web=${encodeURIComponent(origin)}&view=${encodeURIComponent(view)}`;
  return fetchApiText(path, { headers: { accept: 'text/markdown' } });
}

/** The comparison's statistics again (`GET /api/v1/compare`), e.g. after min_effect changed; a 400/404 is a sentence, not a throw. */
export async function fetchCompare(apiQuery: string): Promise<{ ok: true; report: CompareResponse } | { ok: false; error: string }> {
  try {
    return { ok: true, report: await fetchApi(`/api/v1/compare${apiQuery}`, CompareResponse) };
  } catch (err) {
    if (err instanceof ApiHttpError && (err.status === 400 || err.status === 404)) return { ok: false, error: describeStatus(err.status, err.body) };
    throw err;
  }
}

/** Inside one level of a run (`GET /api/v1/runs/{id}/levels/{level}`); a 404 (no such level) is null. */
export async function fetchLevelDetail(runId: string, level: number): Promise<LevelDetail | null> {
  try {
    return await fetchApi(`/api/v1/runs/${encodeURIComponent(runId)}/levels/${encodeURIComponent(String(level))}`, LevelDetail);
  } catch (err) {
    if (err instanceof ApiHttpError && err.status === 404) return null;
    throw err;
  }
}

/** The whole run against wall-clock time (`GET /api/v1/runs/{id}/timeline`). */
export function fetchRunTimeline(runId: string): Promise<RunTimeline> {
  return fetchApi(`/api/v1/runs/${encodeURIComponent(runId)}/timeline`, RunTimeline, { init: { cache: 'no-store' } });
}
