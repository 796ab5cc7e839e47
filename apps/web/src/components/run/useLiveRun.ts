'use client';

import { callApi, endpointUrl } from '@kneeboard/api-client';
import { ENDPOINTS, LIVE_EVENT, type Capacity, type RunDetail } from '@kneeboard/contracts';
import { useEffect, useState } from 'react';
import { backoffDelay } from '../../lib/backoff.ts';
import { snapshotCapacity } from '../../lib/capacity-view.ts';
import { isNewer, keepEndpoints, parseRunDetail, type LiveMode } from '../../lib/live.ts';

export const POLL_INTERVAL_MS = 1000;
/** Consecutive stream errors (with no snapshot in between) after which we stop reconnecting and poll. */
const MAX_STREAM_ERRORS = 3;

export interface LiveRun {
  detail: RunDetail;
  mode: LiveMode;
  /** Browser time of the last accepted update (null before the first). */
  updatedAt: number | null;
  /** While `retrying`: browser time of the next try. */
  retryAt: number | null;
  /** The newest snapshot's capacity under the SLOs the stream was opened with (`slo=`); null without. */
  capacity: Capacity | null;
}

/**
 * Keeps a running run's detail current: Server-Sent Events from the same-origin run's live
 * stream (ENDPOINTS.runLive), or polling the run (ENDPOINTS.getRun) every second when the stream fails
 * (no EventSource, a non-stream response, or repeated drops). A run that is not running is static.
 * When the API stops answering altogether the tries back off (1, 2, 4 … 30 s, the countdown in
 * `retryAt`); the first answer after that reopens the stream if it had worked, so a dropped stream
 * turns back into a live one without a reload. With `slo` (canonical clauses) the stream is asked
 * for each snapshot's capacity under them; changing it reopens the stream.
 *
 * A page opened on one request name's curve (`?name=`) follows that name: the stream is opened with
 * it (the API's snapshots are then that name's detail) and a poll asks for it. Picking another name
 * loads another page (RunView is keyed by run and name), so the stream follows the pick.
 */
export function useLiveRun(initial: RunDetail, slo: string | null = null): LiveRun {
  const [detail, setDetail] = useState(initial);
  const [mode, setMode] = useState<LiveMode>(initial.run.status === 'running' ? 'connecting' : 'static');
  const [updatedAt, setUpdatedAt] = useState<number | null>(null);
  const [retryAt, setRetryAt] = useState<number | null>(null);
  const [capacity, setCapacity] = useState<Capacity | null>(null);
  const id = initial.run.id;
  const follow = initial.run.status === 'running';
  const name = initial.name ?? null;

  useEffect(() => {
    if (!follow) return;
    let stopped = false;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let inFlight: AbortController | null = null;
    let failures = 0;
    // Whether the stream ever delivered: only then is it worth reopening after an outage (an API
    // that answers the stream with 503 is polled for good).
    let streamWorked = false;

    const accept = (next: RunDetail) => {
      setDetail((cur) => (isNewer(cur, next) ? keepEndpoints(cur, next) : cur));
      setUpdatedAt(Date.now());
    };
    const finish = () => {
      stopped = true;
      source?.close();
      clearTimeout(timer);
      setMode('ended');
    };
    const fetchOnce = async (): Promise<RunDetail | null> => {
      inFlight = new AbortController();
      return callApi(ENDPOINTS.getRun, { params: { id }, ...(name === null ? {} : { query: { name } }) }, { init: { cache: 'no-store', signal: inFlight.signal } });
    };
    const poll = async () => {
      if (stopped) return;
      try {
        const next = await fetchOnce();
        if (stopped || next === null) return;
        accept(next);
        if (next.run.status !== 'running') return finish();
        if (failures > 0) {
          failures = 0;
          setRetryAt(null);
          if (streamWorked && typeof EventSource !== 'undefined') return openStream();
          setMode('polling');
        }
      } catch (err) {
        if (stopped) return;
        // Keep trying, less and less often: the API may be restarting. The indicator counts down.
        console.warn('kneeboard: polling the run failed', err);
        const wait = backoffDelay(failures++);
        setRetryAt(Date.now() + wait);
        setMode('retrying');
        timer = setTimeout(poll, wait);
        return;
      }
      timer = setTimeout(poll, POLL_INTERVAL_MS);
    };
    const startPolling = () => {
      if (stopped) return;
      source?.close();
      source = null;
      setMode('polling');
      void poll();
    };
    function openStream() {
      let errors = 0;
      setMode('connecting');
      // The page's request name too (`?name=`, percent-encoded by endpointUrl): that name's snapshots, not the whole run's.
      source = new EventSource(endpointUrl(ENDPOINTS.runLive, { params: { id }, query: { ...(slo === null ? {} : { slo }), ...(name === null ? {} : { name }) } }));
      source.addEventListener(LIVE_EVENT.snapshot, (event) => {
        errors = 0;
        let value: unknown;
        try {
          value = JSON.parse((event as MessageEvent<string>).data);
        } catch (err) {
          console.warn(`kneeboard: ignoring an invalid snapshot: not JSON: ${(err as Error).message}`);
          return;
        }
        const parsed = parseRunDetail(value);
        if (!parsed.ok) {
          console.warn(`kneeboard: ignoring an invalid snapshot: ${parsed.error}`);
          return;
        }
        const judged = snapshotCapacity(value);
        if (judged !== null) setCapacity(judged);
        streamWorked = true;
        setMode('stream');
        accept(parsed.detail);
        if (parsed.detail.run.status !== 'running') finish();
      });
      source.addEventListener(LIVE_EVENT.end, () => {
        source?.close();
        // The end event carries no detail: read the final state (finish time, last level) once.
        fetchOnce()
          .then((last) => {
            if (last !== null) accept(last);
          })
          .catch((err: unknown) => console.warn('kneeboard: reading the finished run failed', err))
          .finally(finish);
      });
      source.onerror = () => {
        errors++;
        // CLOSED: the response was not an event stream (e.g. 404/502); the browser will not retry.
        // CONNECTING: the stream dropped and the browser is reconnecting; give it a few tries.
        if (source?.readyState === EventSource.CLOSED || errors >= MAX_STREAM_ERRORS) startPolling();
        else setMode('connecting');
      };
    }

    if (typeof EventSource === 'undefined') startPolling();
    else openStream();

    return () => {
      stopped = true;
      source?.close();
      clearTimeout(timer);
      inFlight?.abort();
    };
  }, [id, follow, slo, name]);

  return { detail, mode, updatedAt, retryAt, capacity };
}
