import { isSuccessStatus } from '@kneeboard/contracts';

/**
 * Why a request counts as an error, or null for a success: the transport's failure when there was
 * no answer (`ECONNRESET`, a timeout…), else the status by the contracts' success rule (`HTTP 503`).
 * Both engines and every path of the native engine's frames name errors through this one function.
 */
export function errorKindOf(status: number, transportError: string | null = null): string | null {
  if (transportError !== null) return transportError;
  return isSuccessStatus(status) ? null : `HTTP ${status}`;
}

/** A native frame's error kind: 0 is an HTTP answer, k ≥ 1 is the transport error `kinds[k-1]`. */
export function frameErrorKind(kind: number, kinds: readonly string[], status: number): string | null {
  return errorKindOf(status, kind > 0 ? (kinds[kind - 1] ?? 'socket error') : null);
}
