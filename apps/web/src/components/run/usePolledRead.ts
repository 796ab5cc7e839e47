'use client';

import { useEffect, useState } from 'react';

/**
 * A panel's own read of the API: once, again every `everyMs` while the run runs, and once more
 * when it has ended (`running` turning false re-runs this with no timer). A failed read keeps the
 * last value and says why (`failure` + the error's message); the next read clears it.
 */
export function usePolledRead<T>(key: string, read: () => Promise<T>, running: boolean, everyMs: number, failure: string): { value: T | null; error: string | null } {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const once = () => {
      read()
        .then((v) => {
          if (cancelled) return;
          setValue(v);
          setError(null);
        })
        .catch((err: unknown) => {
          if (!cancelled) setError(`${failure}: ${err instanceof Error ? err.message : String(err)}`);
        })
        .finally(() => {
          if (!cancelled && running) timer = setTimeout(once, everyMs);
        });
    };
    once();
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // `key` names what is read (the run); `read` is a new closure each render, so it is not a dependency.
  }, [key, running, everyMs, failure]);
  return { value, error };
}
