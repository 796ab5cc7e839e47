'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, useTransition } from 'react';
import { backoffDelay, secondsUntil } from '../../lib/backoff.ts';

/**
 * Under the "API is not answering" notice: asks the server to render the page again after 1, 2,
 * 4 … 30 s, with the countdown on screen and a button to try at once. The re-render is
 * `router.refresh()` — no reload — so once the API answers the page simply appears in place of
 * the notice (which unmounts this). While the notice is still what comes back, the next wait is
 * twice as long.
 */
export function RetryCountdown() {
  const router = useRouter();
  const [attempt, setAttempt] = useState(0);
  const [dueAt, setDueAt] = useState<number | null>(null);
  const [now, setNow] = useState<number | null>(null);
  const [pending, startTransition] = useTransition();
  const tried = useRef(false);

  // Each finished refresh that left this notice on screen schedules the next, later one.
  useEffect(() => {
    if (pending) return;
    if (tried.current) {
      tried.current = false;
      setAttempt((a) => a + 1);
      return;
    }
    setDueAt(Date.now() + backoffDelay(attempt));
  }, [pending, attempt]);

  useEffect(() => {
    if (dueAt === null || pending) return;
    const tick = () => {
      const t = Date.now();
      setNow(t);
      if (t >= dueAt) retry();
    };
    tick();
    const id = setInterval(tick, 250);
    return () => clearInterval(id);
  }, [dueAt, pending]);

  function retry() {
    setDueAt(null);
    tried.current = true;
    startTransition(() => router.refresh());
  }

  const left = dueAt !== null && now !== null ? secondsUntil(dueAt, now) : null;
  return (
    <p className="retry" data-testid="api-retry" data-attempt={attempt}>
      <span aria-live="polite">{pending || left === null ? 'Trying the API again…' : `Trying again in ${left} s`}</span>
      {attempt > 0 ? <span className="muted"> · {attempt} {attempt === 1 ? 'try' : 'tries'} so far</span> : null}{' '}
      <button type="button" onClick={retry} disabled={pending}>
        Try now
      </button>
    </p>
  );
}
