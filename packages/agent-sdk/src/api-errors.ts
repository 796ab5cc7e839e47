import { ApiError } from '@kneeboard/contracts';

/** Statuses worth another attempt, as in OTLP/HTTP: the receiver is busy (429), its storage is down (503) or full (507), a proxy could not reach it, or our body was too slow (408). */
const RETRIABLE_STATUSES = new Set([408, 429, 502, 503, 504, 507]);

/** The Kneeboard API answered with a non-2xx status. */
export class ApiHttpError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    /** The ApiError body when the API sent one (every 4xx/5xx of the real API does). */
    readonly body: ApiError | undefined,
    /** From a Retry-After header, when present. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(`${method} ${url} → ${describeStatus(status, body)}`);
    this.name = 'ApiHttpError';
  }

  get retriable(): boolean {
    return RETRIABLE_STATUSES.has(this.status);
  }
}

/** `400: level[3]: too small (field level[3])`: the status and the API's own words. */
export function describeStatus(status: number, body: ApiError | undefined): string {
  return body ? `${status}: ${body.message}${body.field ? ` (field ${body.field})` : ''}` : `${status}`;
}

export function parseApiErrorBody(text: string): ApiError | undefined {
  try {
    const parsed = ApiError.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch (err) {
    if (err instanceof SyntaxError) return undefined; // a proxy's HTML error page, say
    throw err;
  }
}

/** Retry-After is either delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A failure below HTTP (refused, reset, timed out, DNS): undici and Node put a string `code` on those. */
export function isNetworkError(err: unknown): err is Error & { code: string } {
  return err instanceof Error && !(err instanceof ApiHttpError) && typeof (err as { code?: unknown }).code === 'string';
}

const CODE_WORDS: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_HEADERS_TIMEOUT: 'no response in time',
  UND_ERR_BODY_TIMEOUT: 'response body stalled',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_ABORTED: 'aborted',
};

/** A short cause for messages: `ECONNREFUSED`, `ENOTFOUND`, `connect timeout`… */
export function describeCause(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'timed out';
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return CODE_WORDS[code] ?? code;
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  if (cause !== undefined && cause !== err) return describeCause(cause);
  return err instanceof Error ? err.message : String(err);
}
