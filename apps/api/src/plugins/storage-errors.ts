/**
 * What kind of storage failure an error is, from ClickHouse's error codes and the OS's errno:
 * - `full`: ClickHouse NOT_ENOUGH_SPACE (243) or ENOSPC / "No space left on device" — 507;
 * - `unreachable`: the server refused, reset or timed out the connection — 503;
 * - null: anything else (a bug, a bad query): a 500.
 * Both kinds are worth a retry (after Retry-After) and neither acknowledges the write.
 */
export type StorageTrouble = 'full' | 'unreachable';

const FULL = /NOT_ENOUGH_SPACE|ENOSPC|No space left on device|Cannot reserve .* on any disk|not enough space/i;
const UNREACHABLE = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|socket hang up|Timeout error|other side closed|connect ETIMEDOUT/i;

function texts(err: unknown, depth = 0): string[] {
  if (depth > 3 || err === null || typeof err !== 'object') return err === undefined ? [] : [String(err)];
  const e = err as { message?: unknown; code?: unknown; type?: unknown; cause?: unknown };
  return [String(e.message ?? ''), String(e.code ?? ''), String(e.type ?? ''), ...texts(e.cause, depth + 1)];
}

export function storageTrouble(err: unknown): StorageTrouble | null {
  const all = texts(err).join('\n');
  if (FULL.test(all) || /(^|\n)243(\n|$)/.test(all)) return 'full';
  if (UNREACHABLE.test(all)) return 'unreachable';
  return null;
}

/** Seconds to wait before retrying: space is freed by a person (or a TTL merge), a restart takes seconds. */
export const RETRY_AFTER_S: Record<StorageTrouble, number> = { full: 30, unreachable: 1 };

/**
 * ClickHouse could not read the input it was given: INCORRECT_DATA (117; what its Arrow reader
 * answers for buffer regions that do not fit, for instance) or CANNOT_PARSE_*. On an insert of one
 * batch that is the batch's own fault, final like any 400 — never a storage failure worth a retry.
 * (A corrupted part on disk is CORRUPTED_DATA or a checksum error: not matched.)
 */
const UNDECODABLE = /INCORRECT_DATA|CANNOT_PARSE_[A-Z_]+/;

export function undecodableInput(err: unknown): boolean {
  return UNDECODABLE.test(texts(err).join('\n'));
}
