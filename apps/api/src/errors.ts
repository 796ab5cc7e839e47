import type { ApiError } from '@kneeboard/contracts';

/** An error the API answers with as-is: a status code and, where one field is to blame, its name. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly field?: string,
    /** Every offending field, when there are several (a batch with many bad entries). */
    readonly issues?: ApiError['issues'],
    /** Sent as Retry-After: the request is safe to repeat, after this many seconds. */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

export const notFound = (what: string, field = 'id') => new HttpError(404, `${what} not found`, field);

const REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 408: 'Request Timeout', 409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 421: 'Misdirected Request', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable', 507: 'Insufficient Storage' };

/**
 * A file system path of this server (`/dev/shm/kneeboard-batch-….arrow` in a storage error, the
 * data directory, a stack frame): absolute, two segments or more, not the API's own `/api/…`
 * routes, and not the path of a URL or route (a `/` after a word character, `:`, `/` or a `}` is not a start).
 */
const SERVER_PATH = /(?<![\w.:/\\})\]])(?:\/(?!api\/)|[A-Za-z]:\\)[^\s'"`,:;()[\]{}<>]*[/\\][^\s'"`,:;()[\]{}<>]*/g;

/** What the server's paths become in an answer: where its files are is nobody's business outside. */
export const scrubPaths = (text: string): string => text.replace(SERVER_PATH, '(a server path)');

/** Every answer's error body; messages are scrubbed of server paths here, once for every route. */
export function errorBody(statusCode: number, message: string, field?: string, issues?: ApiError['issues']): ApiError {
  return {
    statusCode,
    error: REASONS[statusCode] ?? 'Error',
    message: scrubPaths(message),
    ...(field === undefined ? {} : { field }),
    ...(issues === undefined ? {} : { issues: issues.map((i) => ({ ...i, message: scrubPaths(i.message) })) }),
  };
}
