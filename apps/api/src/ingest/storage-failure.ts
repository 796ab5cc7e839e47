import { SharedInsertFailed } from '@kneeboard/clickhouse';
import { HttpError } from '../errors.ts';
import { RETRY_AFTER_S, storageTrouble, undecodableInput } from '../plugins/storage-errors.ts';

/**
 * A storage failure on the write path, answered with Retry-After: 507 when the disk is full, 503
 * otherwise — or a 400 when storage could not read what it was given alone (see undecodableInput). Every write there is idempotent (a batch is one atomic block under its token; steps
 * and finishes are upserts), so the agent's retry is safe — while a 500 would be final to an
 * agent, and its data lost.
 */
export function storageFailure(err: unknown, what: string): HttpError {
  const reason = err instanceof Error ? (err.message.split('\n')[0] ?? err.name) : String(err);
  if (!(err instanceof SharedInsertFailed) && undecodableInput(err)) {
    return new HttpError(400, `storage could not read ${what}: ${reason.replace(/[\s.:]+$/, '')}. The body is malformed: sending it again cannot help`, 'body');
  }
  const failure =
    storageTrouble(err) === 'full'
      ? new HttpError(507, `storage is full: ${what} was not stored and not acknowledged (${reason}); free disk space (or shorten retention) and send it again`, undefined, undefined, RETRY_AFTER_S.full)
      : new HttpError(503, `storage did not take ${what} (${reason}); it was not acknowledged: send it again`, undefined, undefined, RETRY_AFTER_S.unreachable);
  failure.cause = err;
  return failure;
}

/** Runs a storage call of the write path; HTTP errors pass through, anything else becomes a 503 or 507. */
export async function orUnavailable<T>(what: string, job: () => Promise<T>): Promise<T> {
  try {
    return await job();
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw storageFailure(err, what);
  }
}
