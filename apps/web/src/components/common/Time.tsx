'use client';

import { useEffect, useState, useSyncExternalStore } from 'react';
import { formatDuration, formatRelative, formatTimestamp } from '../../lib/format.ts';

const subscribeNever = () => () => {};

/** False during server rendering and hydration, true afterwards: the user's time zone only exists in the browser. */
function useIsClient(): boolean {
  return useSyncExternalStore(
    subscribeNever,
    () => true,
    () => false,
  );
}

function useNow(intervalMs: number, enabled: boolean): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    if (!enabled) return;
    const tick = () => setNow(Date.now());
    tick();
    const id = setInterval(tick, intervalMs);
    return () => clearInterval(id);
  }, [intervalMs, enabled]);
  return now;
}

/**
 * An absolute time, optionally preceded by how long ago it was. The server renders UTC and no
 * relative part (it would be stale in a cached page); the browser switches to its local time.
 */
export function Time({ ms, relative = false }: { ms: number; relative?: boolean }) {
  const isClient = useIsClient();
  const now = useNow(15_000, relative && isClient);
  const zone = isClient ? Intl.DateTimeFormat().resolvedOptions().timeZone : 'UTC';
  const absolute = `${formatTimestamp(ms, zone)}${isClient ? '' : ' UTC'}`;
  const iso = new Date(ms).toISOString();
  return (
    <time dateTime={iso} title={iso} className="time">
      {relative && now !== null ? <span className="time-rel">{formatRelative(ms, now)}</span> : null}
      <span className="time-abs">{absolute}</span>
    </time>
  );
}

/** How long a run took, ticking every second while it has no finish time. */
export function Elapsed({ from, to }: { from: number; to: number | null }) {
  const isClient = useIsClient();
  const now = useNow(1000, to === null && isClient);
  const end = to ?? now;
  return <>{end === null ? '—' : formatDuration(Math.max(0, end - from))}</>;
}
