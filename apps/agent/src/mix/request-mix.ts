import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describeMixIssues, RequestMixFile } from '@kneeboard/contracts';
import { harRequests } from './har.ts';

/** One request of a mix, ready for either engine. */
export interface MixRequest {
  /** Labels its events; several requests may share a name (variants of one endpoint). */
  name: string;
  method: string;
  /** Path and query, sent to the sweep's target. */
  path: string;
  /** The origin the file gave it (a mix.json `url`, a HAR's page), or null for a bare `path`. */
  origin: string | null;
  headers: Record<string, string>;
  body: string | undefined;
  weight: number;
}

/** `--requests FILE`, read and checked: the requests, and their names (each request's name is `names[nameOf[i]]`). */
export interface RequestMix {
  file: string;
  format: 'json' | 'har';
  requests: MixRequest[];
  names: string[];
  nameOf: Uint16Array;
  /** HAR: requests to other origins than the page's, left out. */
  skipped: number;
}

/**
 * Reads a mix.json or a HAR (by its `log.entries`, whatever the file is called). Throws an Error
 * whose message names the file, the entry and the field of every problem.
 */
export function loadRequestMix(file: string): RequestMix {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`--requests: cannot read ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`--requests: ${file} is not JSON: ${(err as Error).message}`);
  }
  const fail = (lines: string[]) => new Error(`--requests: ${file}:\n${lines.map((l) => `  ${l}`).join('\n')}`);
  const isHar = typeof json === 'object' && json !== null && 'log' in json;
  if (isHar) {
    const har = harRequests(json);
    if ('errors' in har) throw fail(har.errors);
    return withNames(file, 'har', har.requests, har.skipped);
  }
  const parsed = RequestMixFile.safeParse(json);
  if (!parsed.success) throw fail(describeMixIssues(parsed.error, json));
  const entries = Array.isArray(parsed.data) ? parsed.data : parsed.data.requests;
  const requests = entries.map((e): MixRequest => {
    const url = e.url === undefined ? undefined : new URL(e.url);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(e.headers ?? {})) headers[k.toLowerCase()] = v;
    let body: string | undefined;
    if (e.body !== undefined && e.body !== null) {
      body = typeof e.body === 'string' ? e.body : JSON.stringify(e.body);
      if (typeof e.body !== 'string' && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    }
    return {
      name: e.name,
      method: (e.method ?? (body === undefined ? 'GET' : 'POST')).toUpperCase(),
      path: url ? url.pathname + url.search : e.path!,
      origin: url ? url.origin : null,
      headers,
      body,
      weight: e.weight,
    };
  });
  return withNames(file, 'json', requests, 0);
}

function withNames(file: string, format: 'json' | 'har', requests: MixRequest[], skipped: number): RequestMix {
  return { file, format, requests, ...nameIndex(requests), skipped };
}

/** The distinct names of a mix's requests, in first-seen order, and each request's index into them. */
export function nameIndex(requests: readonly { name: string }[]): { names: string[]; nameOf: Uint16Array } {
  const names: string[] = [];
  const index = new Map<string, number>();
  const nameOf = new Uint16Array(requests.length);
  requests.forEach((r, i) => {
    let n = index.get(r.name);
    if (n === undefined) {
      n = names.push(r.name) - 1;
      index.set(r.name, n);
    }
    nameOf[i] = n;
  });
  return { names, nameOf };
}

/**
 * Why the mix cannot be sent to `target`, or null: a mix.json `url` must be on the target's origin
 * (a HAR is replayed on the target whatever its page's origin was: that is what it is for).
 */
export function mixOriginProblem(mix: RequestMix, target: URL): string | null {
  if (mix.format === 'har') return null;
  const i = mix.requests.findIndex((r) => r.origin !== null && r.origin !== target.origin);
  if (i < 0) return null;
  const r = mix.requests[i]!;
  return `entry ${i + 1} (${JSON.stringify(r.name)}): url: ${r.origin} is not the target's origin ${target.origin} (one target per sweep; give a path, or --target on that origin)`;
}

/** Names and weights as the run's tags (small: a tag value holds 500 characters). */
export function mixTags(mix: RequestMix): Record<string, string> {
  const weights = new Map<string, number>();
  mix.requests.forEach((r) => weights.set(r.name, (weights.get(r.name) ?? 0) + r.weight));
  const total = [...weights.values()].reduce((a, b) => a + b, 0);
  let text = '';
  let shown = 0;
  for (const [name, w] of weights) {
    const part = `${shown > 0 ? ', ' : ''}${name}=${Math.round((w / total) * 1000) / 10}%`;
    const more = ` … (+${weights.size - shown} more)`;
    if (text.length + part.length + more.length > 500) {
      text += more;
      break;
    }
    text += part;
    shown += 1;
  }
  return { requests_file: basename(mix.file).slice(0, 500), requests: text, requests_count: String(mix.requests.length) };
}

/** The sweep's run with the mix recorded in its tags (the user's own tags win); unchanged without a mix. */
export function withMixTags<C extends { requests?: RequestMix | undefined; run: { tags: Record<string, string> } }>(cfg: C): C {
  return cfg.requests ? { ...cfg, run: { ...cfg.run, tags: { ...mixTags(cfg.requests), ...cfg.run.tags } } } : cfg;
}
