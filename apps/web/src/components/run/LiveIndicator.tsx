'use client';

import { formatWholeSeconds } from '@kneeboard/contracts/figures';
import { useEffect, useState } from 'react';
import { secondsUntil } from '../../lib/backoff.ts';
import type { LiveMode } from '../../lib/live.ts';

const TEXT: Record<LiveMode, string> = {
  static: '',
  connecting: 'connecting…',
  stream: 'live',
  polling: 'live (polling)',
  retrying: 'API not answering',
  ended: 'run ended',
};

/** "live · updated 0.4 s ago" while following a run; turns amber when updates stop arriving. */
export function LiveIndicator({ mode, updatedAt, retryAt = null }: { mode: LiveMode; updatedAt: number | null; retryAt?: number | null }) {
  const [now, setNow] = useState<number | null>(null);
  const ticking = mode === 'stream' || mode === 'polling' || mode === 'connecting' || mode === 'retrying';
  useEffect(() => {
    if (!ticking) return;
    const tick = () => setNow(Date.now());
    tick();
    const id = setInterval(tick, 500);
    return () => clearInterval(id);
  }, [ticking]);
  // Once the run is over the page looks like any finished run: the status badge says so.
  if (mode === 'static' || mode === 'ended') return null;
  const age = updatedAt !== null && now !== null ? Math.max(0, now - updatedAt) / 1000 : null;
  const stale = mode === 'retrying' || (ticking && age !== null && age > 5);
  return (
    <span className={`live live-${mode}${stale ? ' live-stale' : ''}`} data-testid="live-indicator" data-mode={mode}>
      {mode === 'stream' || mode === 'polling' ? <span className="live-dot" aria-hidden /> : null}
      {TEXT[mode]}
      {mode === 'retrying' && retryAt !== null && now !== null ? <span className="live-retry"> · trying again in {secondsUntil(retryAt, now)} s</span> : null}
      {ticking && age !== null ? <span className="live-age"> · updated {age < 1 ? '<1' : formatWholeSeconds(age)} s ago</span> : null}
    </span>
  );
}
