'use client';

import { fetchApi } from '@kneeboard/api-client';
import { LIVE_EVENT, RunDetail } from '@kneeboard/contracts';
import { useEffect, useState } from 'react';
import { isNewer, parseRunDetail, type LiveMode } from '../../lib/live.ts';

export const POLL_INTERVAL_MS = 1000;
/** Consecutive stream errors (with no snapshot in between) after which we stop reconnecting and poll. */
const MAX_STREAM_ERRORS = 3;

export interface LiveRun {
  detail: RunDetail;
  mode: LiveMode;
  /** Browser time of the last accepted update (null before the first). */
  updatedAt: number | null;
}

/**
 * Keeps a running run's detail current: Server-Sent Events from the same-origin
 * `/api/v1/runs/{id}/live`, or polling `GET /api/v1/runs/{id}` every second when the stream fails
 * (no EventSource, a non-stream response, or repeated drops). A run that is not running is static.
 */
export function useLiveRun(initial: RunDetail): LiveRun {
  const [detail, setDetail] = useState(initial);
  const [mode, setMode] = useState<LiveMode>(initial.run.status === 'running' ? 'connecting' : 'static');
  const [updatedAt, setUpdatedAt] = useState<number | null>(null);
  const id = initial.run.id;
  const follow = initial.run.status === 'running';

  useEffect(() => {
    if (!follow) return;
    let stopped = false;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let inFlight: AbortController | null = null;

    const accept = (next: RunDetail) => {
      setDetail((cur) => (isNewer(cur, next) ? next : cur));
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
      return fetchApi(`/api/v1/runs/${encodeURIComponent(id)}`, RunDetail, { init: { cache: 'no-store', signal: inFlight.signal } });
    };
    const poll = async () => {
      if (stopped) return;
      try {
        const next = await fetchOnce();
        if (stopped || next === null) return;
        accept(next);
        if (next.run.status !== 'running') return finish();
      } catch (err) {
        if (stopped) return;
        // Keep polling: the API may be restarting. The indicator shows how old the data is.
        console.warn('kneeboard: polling the run failed', err);
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

    if (typeof EventSource === 'undefined') {
      startPolling();
    } else {
      let errors = 0;
      source = new EventSource(`/api/v1/runs/${encodeURIComponent(id)}/live`);
      source.addEventListener(LIVE_EVENT.snapshot, (event) => {
        errors = 0;
        const parsed = parseRunDetail((event as MessageEvent<string>).data);
        if (!parsed.ok) {
          console.warn(`kneeboard: ignoring an invalid snapshot: ${parsed.error}`);
          return;
        }
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

    return () => {
      stopped = true;
      source?.close();
      clearTimeout(timer);
      inFlight?.abort();
    };
  }, [id, follow]);

  return { detail, mode, updatedAt };
}
