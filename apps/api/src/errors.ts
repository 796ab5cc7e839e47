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

export function errorBody(statusCode: number, message: string, field?: string, issues?: ApiError['issues']): ApiError {
  return {
    statusCode,
    error: REASONS[statusCode] ?? 'Error',
    message,
    ...(field === undefined ? {} : { field }),
    ...(issues === undefined ? {} : { issues }),
  };
}
