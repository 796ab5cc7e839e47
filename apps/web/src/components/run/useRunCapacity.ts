'use client';

import { callApi } from '@kneeboard/api-client';
import { ENDPOINTS, type Capacity } from '@kneeboard/contracts';
import { useEffect, useState } from 'react';

export interface RunCapacity {
  capacity: Capacity | null;
  /** Why the capacity could not be read; null otherwise. */
  error: string | null;
}

/**
 * The run's capacity under `slo` (canonical clauses; null: none asked). A live snapshot's capacity
 * for the same SLOs (the stream computes it with each change) is used as it comes; otherwise the
 * analysis is asked (ENDPOINTS.runAnalysis with `slo=`) when the SLOs change and again at each
 * `version` (a polled update, the run's end), so a run followed without the stream stays current.
 */
export function useRunCapacity(runId: string, slo: string | null, live: Capacity | null, version: number | null): RunCapacity {
  const [fetched, setFetched] = useState<{ slo: string; capacity: Capacity } | null>(null);
  const [error, setError] = useState<{ slo: string; message: string } | null>(null);
  const liveMatches = slo !== null && live !== null && live.slos.join(',') === slo;

  useEffect(() => {
    if (slo === null || liveMatches) return;
    const abort = new AbortController();
    callApi(ENDPOINTS.runAnalysis, { params: { id: runId }, query: { slo } }, { init: { cache: 'no-store', signal: abort.signal } })
      .then((analysis) => {
        if (abort.signal.aborted) return;
        setError(null);
        setFetched(analysis.capacity ? { slo, capacity: analysis.capacity } : null);
      })
      .catch((err: unknown) => {
        if (!abort.signal.aborted) setError({ slo, message: `The capacity could not be read: ${err instanceof Error ? err.message : String(err)}` });
      });
    return () => abort.abort();
  }, [runId, slo, liveMatches, version]);

  if (slo === null) return { capacity: null, error: null };
  if (liveMatches) return { capacity: live, error: null };
  return { capacity: fetched?.slo === slo ? fetched.capacity : null, error: error?.slo === slo ? error.message : null };
}
