import { Pool } from 'undici';
import { ApiHttpError, describeCause } from '../recorder/api-errors.ts';
import type { KneeboardApi } from '../recorder/api-client.ts';
import { sendTimedRequest, type RequestOutcome, type TargetRequest } from './send-request.ts';
import { SweepError } from './sweep-error.ts';

/** GET /healthz once, so a missing API is reported before any load is sent. */
export async function checkApi(api: KneeboardApi): Promise<void> {
  try {
    await api.health();
  } catch (err) {
    if (err instanceof ApiHttpError) {
      throw new SweepError('api-unreachable', `the Kneeboard API at ${api.baseUrl} answered ${err.status} to GET /healthz: it is not ready.`, { cause: err });
    }
    throw new SweepError(
      'api-unreachable',
      `cannot reach the Kneeboard API at ${api.baseUrl} (${describeCause(err)}). Is it running? Start everything with \`./scripts/start.sh\`, or pass --api <url>.`,
      { cause: err },
    );
  }
}

/** One request exactly as the sweep will send it; an error status or no answer stops the sweep before it starts. */
export async function probeTarget(target: URL, request: TargetRequest, signal: AbortSignal): Promise<RequestOutcome> {
  const pool = new Pool(target.origin, { connections: 1, pipelining: 1, connect: { timeout: request.timeoutMs } });
  let outcome: RequestOutcome | null;
  try {
    outcome = await sendTimedRequest(pool, request, signal);
  } finally {
    await pool.close();
  }
  if (outcome === null) throw new SweepError('target-unreachable', `stopped while checking the target at ${target.href}`);
  if (outcome.status === 0) {
    throw new SweepError(
      'target-unreachable',
      `cannot reach the target at ${target.href} (${outcome.errorKind}). Is it running? ` +
        'The demo target starts with `pnpm --filter @kneeboard/demo-target start`.',
    );
  }
  if (outcome.status >= 400) {
    throw new SweepError(
      'target-rejected',
      `the target at ${target.href} answered ${outcome.status} to ${request.method}: every request of the sweep would be an error. ` +
        'Check the URL, method, headers and body.',
    );
  }
  return outcome;
}
