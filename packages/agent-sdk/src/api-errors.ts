import { ApiHttpError } from '@kneeboard/api-client';

// The error types and the parsing of error answers are @kneeboard/api-client's (one core for the
// web app and this SDK); what stays here is the SDK's own: which failures are worth a retry, and
// undici's error codes in words.
export { ApiHttpError, describeStatus, parseApiErrorBody, parseRetryAfter } from '@kneeboard/api-client';

/** Statuses worth another attempt, as in OTLP/HTTP: the receiver is busy (429), its storage is down (503) or full (507), a proxy could not reach it, or our body was too slow (408). */
const RETRIABLE_STATUSES = new Set([408, 429, 502, 503, 504, 507]);

export function isRetriableStatus(status: number): boolean {
  return RETRIABLE_STATUSES.has(status);
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
