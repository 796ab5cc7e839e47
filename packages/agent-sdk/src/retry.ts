import { setTimeout as sleep } from 'node:timers/promises';
import { ApiNetworkError } from '@kneeboard/api-client';
import { ApiHttpError, isNetworkError, isRetriableStatus } from './api-errors.ts';

export interface RetryPolicy {
  /** First backoff; doubled after every failed attempt, with full jitter. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Stop retrying once this much time has passed since the first attempt. */
  giveUpAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { initialDelayMs: 200, maxDelayMs: 5_000, giveUpAfterMs: 60_000 };

export interface RetryNotice {
  attempt: number;
  delayMs: number;
  error: unknown;
}

/**
 * Only 408/429/502/503/504/507 and network errors are retried; a 400 is final (the same body would
 * fail again). Network errors come as undici's (this client) or as the shared core's
 * ApiNetworkError (callers going through `fetchApi`, such as the agent's fleet calls).
 */
export function isRetriable(err: unknown): boolean {
  if (err instanceof ApiHttpError) return isRetriableStatus(err.status);
  return err instanceof ApiNetworkError || isNetworkError(err);
}

export interface RetryHooks {
  onRetry?: (notice: RetryNotice) => void;
  /**
   * When the failures began, for the give-up rule. Default: the first attempt of this call. A client
   * making many calls passes the start of its current failure streak, so once the receiver has been
   * down for giveUpAfterMs, later calls give up after one attempt instead of each waiting it out.
   */
  failingSince?: () => number;
}

/**
 * Runs `attempt` until it succeeds, a final error occurs, or the policy gives up (then the last
 * error is thrown). The caller's attempt must resend the identical request — for event batches,
 * the same batch_id — so a retry after a lost acknowledgement is deduplicated by the API.
 */
export async function withRetry<T>(attempt: () => Promise<T>, policy: RetryPolicy, hooks: RetryHooks = {}): Promise<T> {
  const started = Date.now();
  const failingSince = hooks.failingSince ?? (() => started);
  let backoff = policy.initialDelayMs;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isRetriable(err)) throw err;
      // The receiver's Retry-After wins over our own backoff; giveUpAfterMs still bounds the wait.
      const hinted = err instanceof ApiHttpError ? err.retryAfterMs : undefined;
      const delayMs = hinted ?? Math.random() * backoff;
      if (Date.now() + delayMs - failingSince() > policy.giveUpAfterMs) throw err;
      hooks.onRetry?.({ attempt: n, delayMs, error: err });
      await sleep(delayMs);
      backoff = Math.min(backoff * 2, policy.maxDelayMs);
    }
  }
}
