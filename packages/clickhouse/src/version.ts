let last = 0;

/**
 * A strictly increasing row version for ReplacingMergeTree tables: microseconds since the epoch,
 * bumped when two writes land in the same microsecond, so the latest write in this process wins.
 */
export function nextVersion(): number {
  const now = Date.now() * 1000;
  last = now > last ? now : last + 1;
  return last;
}
