import { ApiError } from '@kneeboard/contracts';

/** The Kneeboard API answered with a non-2xx status. */
export class ApiHttpError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    /** The ApiError body when the API sent one (every 4xx/5xx of the real API does; a proxy's HTML page does not). */
    readonly body: ApiError | undefined,
    /** From a Retry-After header, when present. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(`${method} ${url} → ${describeStatus(status, body)}`);
    this.name = 'ApiHttpError';
  }
}

/** No HTTP answer at all: refused, reset, DNS, timed out or aborted. `cause` is the transport's own error. */
export class ApiNetworkError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${method} ${url}: no answer (${causeText(cause)})`, { cause });
    this.name = 'ApiNetworkError';
  }
}

/** A 2xx answer whose body is not JSON or not the shape the contracts promise. */
export class ApiShapeError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly detail: string,
  ) {
    super(`${method} ${url}: unexpected response shape: ${detail}`);
    this.name = 'ApiShapeError';
  }
}

/** `400: level[3]: too small (field level[3])`: the status and the API's own words. */
export function describeStatus(status: number, body: ApiError | undefined): string {
  return body ? `${status}: ${body.message}${body.field ? ` (field ${body.field})` : ''}` : `${status}`;
}

/** The API's ApiError body, or undefined for anything else (a proxy's HTML error page, say). */
export function parseApiErrorBody(text: string): ApiError | undefined {
  try {
    const parsed = ApiError.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

/** Retry-After is either delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | null | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v === null || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The error for a non-2xx answer, from what any transport (fetch, undici) gives: status, body text, Retry-After. */
export function apiHttpError(method: string, url: string, status: number, text: string, retryAfter?: string | string[] | null): ApiHttpError {
  return new ApiHttpError(method, url, status, parseApiErrorBody(text), parseRetryAfter(retryAfter));
}

// fetch() wraps the socket's error (with its `code`, e.g. ECONNREFUSED) in a TypeError('fetch failed').
function causeText(err: unknown): string {
  const inner = (err as { cause?: unknown } | undefined)?.cause;
  const code = (inner as { code?: unknown } | undefined)?.code ?? (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return err instanceof Error ? err.message : String(err);
}
