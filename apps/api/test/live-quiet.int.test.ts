import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_EVENT, RunDetail } from '@kneeboard/contracts';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
import { randomBatch, stepAt } from './ingest-support.ts';
import { readEvents } from './sse.ts';

/**
 * On the embedded engine a live view shows stored batches from the figures the store keeps in
 * memory (rollup percentiles), and reads storage again once the run is quiet: the stream then
 * carries what GET /runs/{id} answers — the exact percentiles of a small run, the same counts.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ mode: 'embedded' });
});
afterAll(async () => api?.close());

describe('a live view once the run is quiet', () => {
  it('shows what GET /runs/{id} shows, after snapshots from memory', async () => {
    const runId = await createRun(api.url);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(2))).status).toBe(200);
    const stop = new AbortController();
    const events = readEvents(await fetch(`${api.url}/api/v1/runs/${runId}/live`, { signal: stop.signal }));
    expect((await events.next()).value?.event).toBe(LIVE_EVENT.snapshot);

    const sent = [randomBatch('q-1', 700, 11), randomBatch('q-2', 500, 12, 2), randomBatch('q-3', 900, 13)];
    for (const b of sent) expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, b)).status).toBe(200);
    // A copy is a duplicate, counted once.
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, sent[0])).body).toEqual({ accepted: 0, duplicate: true });
    const stored = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json());
    expect(stored.percentiles).toBe('exact');
    expect(stored.curve.map((p) => p.requests)).toEqual([1_600, 500]);

    // Snapshots come as the batches are stored; the one after the run went quiet is the stored detail.
    const sources: string[] = [];
    for (;;) {
      const next = await events.next();
      const detail = RunDetail.parse(JSON.parse(next.value?.data ?? ''));
      sources.push(detail.percentiles ?? 'none');
      if (detail.percentiles === 'exact' && detail.curve.reduce((n, p) => n + p.requests, 0) === 2_100) {
        expect(detail.curve).toEqual(stored.curve);
        break;
      }
    }
    // The ones before it were made from memory (the rollup's sketch), not by a query per snapshot.
    expect(sources.slice(0, -1)).toContain('rollup');
    stop.abort();
  }, 60_000);
});
