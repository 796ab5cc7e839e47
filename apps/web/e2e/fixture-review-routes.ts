/**
 * The fixture API's routes for comparing releases and sharing views, in the real API's shapes:
 *   GET   /api/v1/compare?base=&head=[&head=…]&min_effect=   CompareResponse (400/404 ApiError)
 *   GET   /api/v1/compare.md?…&web=<origin>                    Markdown for a pull request
 *   GET   /api/v1/compare.svg?…, /api/v1/runs/{id}/curve.svg   a placeholder image (the web only links to it)
 *   GET   /api/v1/runs/{id}/curve.csv                          the curve, one row per level
 *   PATCH /api/v1/runs/{id}  {labels?, note?}                  Run
 *   GET   /api/v1/services, /api/v1/services/{service}/releases
 *   POST  /api/v1/links {path} → 201 Link;  GET /api/v1/links/{code} → Link | 404
 */
import type http from 'node:http';
import { CompareQuery, formatRunGroupRef, CreateLinkBody, MAX_RUNS_PER_GROUP, UpdateRunBody, type ApiError, type RunGroupRef, type ReleaseGroup, type RunDetail, type RunSummary, type ServiceSummary } from '@kneeboard/contracts';
import { buildComparison, comparisonMarkdown, curveCsv, placeholderSvg } from './fixture-compare.ts';

export interface FixtureStore {
  all(): RunDetail[];
  find(id: string): RunDetail | undefined;
  patch(id: string, body: UpdateRunBody): void;
  summary(d: RunDetail): RunSummary;
}

export interface ReviewRoutesStats {
  compareGets: number;
  markdownGets: number;
  linkPosts: number;
  patches: Array<{ id: string; body: UpdateRunBody }>;
}

function send(res: http.ServerResponse, status: number, type: string, text: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

function error(res: http.ServerResponse, status: 400 | 404, message: string): void {
  const body: ApiError = { statusCode: status, error: status === 400 ? 'Bad Request' : 'Not Found', message };
  json(res, status, body);
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

const CODE_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Handles the request when it is one of these routes; returns false to let the caller answer. */
export function createReviewRoutes(store: FixtureStore) {
  const links = new Map<string, string>();
  const stats: ReviewRoutesStats = { compareGets: 0, markdownGets: 0, linkPosts: 0, patches: [] };
  const cache = new Map<string, ReturnType<typeof buildComparison>>();

  const newCode = () => {
    for (;;) {
      const code = Array.from({ length: 8 }, () => CODE_CHARS[Math.floor(Math.random() * CODE_CHARS.length)]).join('');
      if (!links.has(code)) return code;
    }
  };

  function compare(url: URL, res: http.ServerResponse): { query: CompareQuery; report: ReturnType<typeof buildComparison> } | null {
    const raw = { base: url.searchParams.get('base') ?? undefined, head: url.searchParams.getAll('head'), min_effect: url.searchParams.get('min_effect') ?? undefined };
    const parsed = CompareQuery.safeParse(raw);
    if (!parsed.success) {
      error(res, 400, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      return null;
    }
    const q = parsed.data;
    // As the API: a release side is its finished runs, newest first (at most MAX_RUNS_PER_GROUP);
    // a release with none answers 404 naming the field and the release.
    const resolve = (ref: RunGroupRef, field: string): string[] | string => {
      if (ref.kind === 'runs') return ref.ids;
      const ids = store
        .all()
        .filter((d) => d.run.service === ref.service && d.run.release === ref.release && d.run.status === 'finished')
        .sort((a, b) => b.run.created_at - a.run.created_at)
        .slice(0, MAX_RUNS_PER_GROUP)
        .map((d) => d.run.id);
      return ids.length > 0 ? ids : `${field}: no finished run of release "${ref.release}" of service "${ref.service}"`;
    };
    const sides = [resolve(q.base, 'base'), ...q.head.map((h, i) => resolve(h, q.head.length > 1 ? `head[${i}]` : 'head'))];
    const unknown = sides.find((s) => typeof s === 'string');
    if (typeof unknown === 'string') return error(res, 404, unknown), null;
    const [baseIds, ...headIds] = sides as string[][];
    const find = (ids: string[]) => ids.map((id) => store.find(id));
    const base = find(baseIds!);
    const heads = headIds.map(find);
    const missing = [...baseIds!, ...headIds.flat()].find((id) => store.find(id) === undefined);
    if (missing) return error(res, 404, `no run ${missing}`), null;
    const key = JSON.stringify([q, [...base, ...heads.flat()].map((d) => d?.run)]);
    const report = cache.get(key) ?? buildComparison(base as RunDetail[], heads as RunDetail[][], q);
    cache.set(key, report);
    return { query: q, report };
  }

  function services(): ServiceSummary[] {
    const by = new Map<string, RunDetail[]>();
    for (const d of store.all()) by.set(d.run.service, [...(by.get(d.run.service) ?? []), d]);
    return [...by.entries()]
      .map(([service, runs]) => ({ service, runs: runs.length, releases: new Set(runs.map((r) => r.run.release)).size, last_run_at: Math.max(...runs.map((r) => r.run.created_at)) }))
      .sort((a, b) => b.last_run_at - a.last_run_at);
  }

  function releases(service: string): ReleaseGroup[] {
    const groups = new Map<string, ReleaseGroup>();
    const runs = store
      .all()
      .filter((d) => d.run.service === service)
      .sort((a, b) => b.run.created_at - a.run.created_at);
    for (const d of runs) {
      const g = groups.get(d.run.release) ?? { release: d.run.release, first_run_at: d.run.created_at, runs: [] };
      g.first_run_at = Math.min(g.first_run_at, d.run.created_at);
      g.runs.push(store.summary(d));
      groups.set(d.run.release, g);
    }
    return [...groups.values()].sort((a, b) => a.first_run_at - b.first_run_at);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<boolean> {
    const parts = url.pathname.split('/').filter(Boolean).slice(2); // after api/v1
    const [head, id, sub] = parts;
    const method = req.method ?? 'GET';

    if (method === 'GET' && parts.length === 1 && head === 'compare') {
      stats.compareGets++;
      const c = compare(url, res);
      if (c) json(res, 200, c.report);
      return true;
    }
    if (method === 'GET' && parts.length === 1 && head === 'compare.md') {
      stats.markdownGets++;
      const c = compare(url, res);
      if (c) send(res, 200, 'text/markdown; charset=utf-8', comparisonMarkdown(c.report, c.query, url.searchParams.get('web')));
      return true;
    }
    if (method === 'GET' && parts.length === 1 && head === 'compare.svg') {
      const c = compare(url, res);
      if (c) send(res, 200, 'image/svg+xml; charset=utf-8', placeholderSvg(`compare ${formatRunGroupRef(c.query.base)}`));
      return true;
    }
    if (head === 'runs' && id !== undefined && (sub === 'curve.csv' || sub === 'curve.svg') && method === 'GET') {
      const d = store.find(id);
      if (!d) return error(res, 404, `no run ${id}`), true;
      if (sub === 'curve.svg') send(res, 200, 'image/svg+xml; charset=utf-8', placeholderSvg(`${d.run.service} ${d.run.release}`));
      else send(res, 200, 'text/csv; charset=utf-8', curveCsv(d.curve));
      return true;
    }
    if (head === 'runs' && id !== undefined && parts.length === 2 && method === 'PATCH') {
      const body = UpdateRunBody.safeParse(await readJson(req));
      if (!body.success) return error(res, 400, body.error.issues.map((i) => i.message).join('; ')), true;
      if (!store.find(id)) return error(res, 404, `no run ${id}`), true;
      stats.patches.push({ id, body: body.data });
      store.patch(id, body.data);
      json(res, 200, store.find(id)?.run);
      return true;
    }
    if (head === 'services' && method === 'GET') {
      if (parts.length === 1) return json(res, 200, { services: services() }), true;
      if (parts.length === 3 && sub === 'releases' && id !== undefined) {
        const service = decodeURIComponent(id);
        return json(res, 200, { service, releases: releases(service) }), true;
      }
    }
    if (head === 'links') {
      if (method === 'POST' && parts.length === 1) {
        stats.linkPosts++;
        const body = CreateLinkBody.safeParse(await readJson(req));
        if (!body.success) return error(res, 400, body.error.issues.map((i) => i.message).join('; ')), true;
        const code = newCode();
        links.set(code, body.data.path);
        return json(res, 201, { code, path: body.data.path }), true;
      }
      if (method === 'GET' && parts.length === 2 && id !== undefined) {
        const path = links.get(id);
        return path === undefined ? error(res, 404, `no link ${id}`) : json(res, 200, { code: id, path }), true;
      }
    }
    return false;
  }

  return { handle, stats: () => structuredClone(stats) };
}
