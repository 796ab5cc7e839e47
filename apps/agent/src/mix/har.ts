import { z } from 'zod';
import { MAX_MIX_REQUESTS } from '@kneeboard/contracts';
import type { MixRequest } from './request-mix.ts';

/** The part of a HAR 1.2 file (a browser's "Save all as HAR") a mix is made of. */
const HarFile = z.object({
  log: z.object({
    entries: z
      .array(
        z.object({
          request: z.object({
            method: z.string().regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, 'must be an HTTP method'),
            url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
            headers: z.array(z.object({ name: z.string(), value: z.string() })).default([]),
            postData: z.object({ mimeType: z.string().optional(), text: z.string().optional() }).optional(),
          }),
        }),
      )
      .min(1, 'holds no request'),
  }),
});

/** Distinct requests (method + URL) a HAR may hold: past it, it is a crawl, not a page's traffic. */
const MAX_HAR_REQUESTS = 10_000;

// Not replayed: HTTP/2 pseudo-headers (`:authority`) and what the engine sets or frames itself.
const DROPPED = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * A HAR's requests as a mix: one request per distinct method + URL, weighted by how many times the
 * page made it, named `METHOD /path` (no query, so ids in query strings do not become names).
 * The page's own origin is the first entry's; requests to other origins (CDNs, analytics) are left
 * out and counted. Headers are replayed as recorded, minus pseudo-headers and framing.
 */
export function harRequests(json: unknown): { requests: MixRequest[]; origin: string; skipped: number } | { errors: string[] } {
  const parsed = HarFile.safeParse(json);
  if (!parsed.success) {
    return {
      errors: parsed.error.issues.map((i) => {
        const [, , at, ...rest] = i.path.map(String);
        return at === undefined ? `${i.path.join('.') || 'file'}: ${i.message}` : `entry ${Number(at) + 1}: ${rest.join('.')}: ${i.message}`;
      }),
    };
  }
  const entries = parsed.data.log.entries;
  const origin = new URL(entries[0]!.request.url).origin;
  const byKey = new Map<string, MixRequest>();
  let skipped = 0;
  for (const { request: r } of entries) {
    const url = new URL(r.url);
    if (url.origin !== origin) {
      skipped += 1;
      continue;
    }
    const method = r.method.toUpperCase();
    const path = url.pathname + url.search;
    const key = `${method} ${path}`;
    const seen = byKey.get(key);
    if (seen) {
      seen.weight += 1;
      continue;
    }
    const headers: Record<string, string> = {};
    for (const h of r.headers) {
      const name = h.name.toLowerCase();
      if (DROPPED.has(name) || !TOKEN.test(name) || /[\r\n\0]/.test(h.value)) continue;
      headers[name] = h.value;
    }
    const body = r.postData?.text;
    if (body !== undefined && r.postData?.mimeType && headers['content-type'] === undefined) headers['content-type'] = r.postData.mimeType;
    // A name is a label (≤ 200 characters): a longer path is cut, its requests still sent whole.
    byKey.set(key, { name: `${method} ${url.pathname}`.slice(0, 200), method, path, origin, headers, body, weight: 1 });
  }
  const requests = [...byKey.values()];
  if (requests.length > MAX_HAR_REQUESTS) return { errors: [`holds ${requests.length} distinct requests (method + URL): at most ${MAX_HAR_REQUESTS}`] };
  const names = new Set(requests.map((r) => r.name));
  if (names.size > MAX_MIX_REQUESTS) return { errors: [`holds ${names.size} distinct names (method + path): at most ${MAX_MIX_REQUESTS} — ids in paths make every request its own name; cut the HAR or write a mix.json`] };
  return { requests, origin, skipped };
}
