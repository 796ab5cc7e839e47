/**
 * How long to wait before the next attempt to reach the API: 1 s, 2 s, 4 s … capped at 30 s. A
 * page waiting for an API that is starting (the demo's first seconds) finds it within a second or
 * two; one left open on an API that is down asks every half minute, not every second.
 */
export const BACKOFF_FIRST_MS = 1000;
export const BACKOFF_MAX_MS = 30_000;

export function backoffDelay(attempt: number, first = BACKOFF_FIRST_MS, max = BACKOFF_MAX_MS): number {
  if (!Number.isFinite(attempt) || attempt < 0) return first;
  return Math.min(max, first * 2 ** Math.min(attempt, 30));
}

/** Whole seconds left until `at`, for a countdown ("trying again in 3 s"); never below 0. */
export function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}
