import type { z } from 'zod';
import { apiHttpError, ApiNetworkError } from './api-errors.ts';
import { parseApiBody } from './parse-body.ts';

export interface ApiRequest {
  /** Default GET. */
  method?: string;
  /** Sent as JSON, with `content-type: application/json`. */
  json?: unknown;
  headers?: Record<string, string>;
  /** The caller's own fetch options: a timeout signal, Next.js's `cache: 'no-store'`, credentials… */
  init?: Omit<RequestInit, 'method' | 'body' | 'headers'>;
}

/**
 * One call to the API with the platform's fetch (browser, Node, or Next.js's patched one — looked up
 * at call time): the body text of a 2xx answer; an ApiHttpError for any other status; an
 * ApiNetworkError when there is no answer at all.
 */
export async function fetchApiText(url: string, request: ApiRequest = {}): Promise<string> {
  const method = request.method ?? 'GET';
  const headers = { accept: 'application/json', ...(request.json === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers };
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { ...request.init, method, headers, ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }) });
    text = await res.text();
  } catch (err) {
    throw new ApiNetworkError(method, url, err);
  }
  if (!res.ok) throw apiHttpError(method, url, res.status, text, res.headers.get('retry-after'));
  return text;
}

/** fetchApiText, then the body parsed with the contracts' schema (see parseApiBody). */
export async function fetchApi<T>(url: string, schema: z.ZodType<T>, request: ApiRequest = {}): Promise<T> {
  const text = await fetchApiText(url, request);
  return parseApiBody(request.method ?? 'GET', url, text, schema);
}
