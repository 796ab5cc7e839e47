import type { ApiError } from '@kneeboard/contracts';

/** An error the API answers with as-is: a status code and, where one field is to blame, its name. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string, field = 'id') => new HttpError(404, `${what} not found`, field);

const REASONS: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 413: 'Payload Too Large', 500: 'Internal Server Error' };

export function errorBody(statusCode: number, message: string, field?: string, issues?: ApiError['issues']): ApiError {
  return {
    statusCode,
    error: REASONS[statusCode] ?? 'Error',
    message,
    ...(field === undefined ? {} : { field }),
    ...(issues === undefined ? {} : { issues }),
  };
}
