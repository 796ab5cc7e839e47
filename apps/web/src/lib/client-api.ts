/**
 * Browser-side calls to the API through the dashboard's own origin (`/api/…`, see proxy.ts):
 * short links, run labels and notes, and the comparison as Markdown. Bodies are parsed with the
 * contracts' schemas; failures become one readable sentence.
 */
import { CompareResponse, LevelDetail, Link, Run, type UpdateRunBody } from '@kneeboard/contracts';
import type { z } from 'zod';

async function reason(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return `${res.status}: ${body.message}`;
  } catch {
    // not JSON: fall through to the raw text
  }
  return `${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
}

async function send<T>(method: string, path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
  const res = await fetch(path, { method, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path} failed (${await reason(res)})`);
  const parsed = schema.safeParse(await res.json());
  if (!parsed.success) throw new Error(`${method} ${path}: unexpected response shape`);
  return parsed.data;
}

/** Stores a short link to a view path (`/compare?…`); the app serves it at `/s/{code}`. */
export function createShortLink(path: string): Promise<Link> {
  return send('POST', '/api/v1/links', { path }, Link);
}

export function updateRun(id: string, body: UpdateRunBody): Promise<Run> {
  return send('PATCH', `/api/v1/runs/${encodeURIComponent(id)}`, body, Run);
}

/** The comparison as Markdown for a pull request, linking back to this view (with its settings) on this origin. */
export async function fetchCompareMarkdown(apiQuery: string, origin: string, view: string): Promise<string> {
  const path = `/api/v1/compare.md${apiQuery}${apiQuery ? '&' : '?'}web=${encodeURIComponent(origin)}&view=${encodeURIComponent(view)}`;
  const res = await fetch(path, { headers: { accept: 'text/markdown' } });
  if (!res.ok) throw new Error(`GET /api/v1/compare.md failed (${await reason(res)})`);
  return res.text();
}

/** The comparison's statistics again (`GET /api/v1/compare`), e.g. after min_effect changed; a 400/404 is a sentence, not a throw. */
export async function fetchCompare(apiQuery: string): Promise<{ ok: true; report: CompareResponse } | { ok: false; error: string }> {
  const path = `/api/v1/compare${apiQuery}`;
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  if (res.status === 400 || res.status === 404) return { ok: false, error: await reason(res) };
  if (!res.ok) throw new Error(`GET /api/v1/compare failed (${await reason(res)})`);
  const parsed = CompareResponse.safeParse(await res.json());
  if (!parsed.success) throw new Error('GET /api/v1/compare: unexpected response shape');
  return { ok: true, report: parsed.data };
}

/** Inside one level of a run (`GET /api/v1/runs/{id}/levels/{level}`); a 404 (no such level) is null. */
export async function fetchLevelDetail(runId: string, level: number): Promise<LevelDetail | null> {
  const path = `/api/v1/runs/${encodeURIComponent(runId)}/levels/${encodeURIComponent(String(level))}`;
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`GET ${path} failed (${await reason(res)})`);
  const parsed = LevelDetail.safeParse(await res.json());
  if (!parsed.success) throw new Error(`GET ${path}: unexpected response shape`);
  return parsed.data;
}
