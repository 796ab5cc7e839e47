import { HttpError } from '../errors.ts';

/**
 * A storage failure on the write path, answered 503 with Retry-After: every write there is
 * idempotent (a batch is one atomic block under its token; steps and finishes are upserts), so the
 * agent's retry is safe — while a 500 would be final to an agent, and its data lost.
 */
export function storageFailure(err: unknown, what: string): HttpError {
  const reason = err instanceof Error ? (err.message.split('\n')[0] ?? err.name) : String(err);
  const failure = new HttpError(503, `storage did not take ${what} (${reason}); it was not acknowledged: send it again`, undefined, undefined, 1);
  failure.cause = err;
  return failure;
}

/** Runs a storage call of the write path; HTTP errors pass through, anything else becomes a 503. */
export async function orUnavailable<T>(what: string, job: () => Promise<T>): Promise<T> {
  try {
    return await job();
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw storageFailure(err, what);
  }
}
