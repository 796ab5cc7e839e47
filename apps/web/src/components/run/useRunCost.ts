'use client';

import { callApi } from '@kneeboard/api-client';
import { ENDPOINTS, type RunCost } from '@kneeboard/contracts';
import { usePolledRead } from './usePolledRead.ts';

/** A running run's cost is read again at most this often. */
const LIVE_REFRESH_MS = 3000;

const fetchRunCost = (runId: string) => callApi(ENDPOINTS.getRunCost, { params: { id: runId } }, { init: { cache: 'no-store' } });

/**
 * What each level cost the server, read once for the run page: the "What it costs" panel and the
 * open level's figures show the same answer (one read, one poll while the run runs).
 */
export function useRunCost(runId: string, running: boolean): { value: RunCost | null; error: string | null } {
  return usePolledRead(runId, () => fetchRunCost(runId), running, LIVE_REFRESH_MS, 'What the server spent could not be read');
}
