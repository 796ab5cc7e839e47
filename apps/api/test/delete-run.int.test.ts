import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests, countRollupRequests } from '@kneeboard/clickhouse';
import { batchOf, postJson, STORAGE_MODES, startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

describe.each(STORAGE_MODES)('DELETE /api/v1/runs/{id} (%s)', (mode) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ mode });
  });
  afterAll(async () => api.close());

  it('removes the run, its steps and every raw event; other runs are untouched; the id then answers 404', async () => {
    const doomed = await storeSyntheticRun(api.url, { seed: 1, release: 'bad', service: 'del-svc', levels: [1, 2], seconds: 1 });
    const kept = await storeSyntheticRun(api.url, { seed: 2, release: 'good', service: 'del-svc', levels: [1, 2], seconds: 1 });
    const keptEvents = await countRequests(api.db, kept);
    expect(await countRequests(api.db, doomed)).toBeGreaterThan(0);

    const res = await fetch(`${api.url}/api/v1/runs/${doomed}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await countRequests(api.db, doomed)).toBe(0);
    expect(await countRollupRequests(api.db, doomed)).toBe(0);
    // Every read of the run answers 404 once it is gone (schemathesis found /agents answering 200).
    for (const path of ['', '.png', '/agents', '/analysis', '/curve.csv', '/curve.svg', '/fleet', '/levels/1', '/live']) {
      expect((await fetch(`${api.url}/api/v1/runs/${doomed}${path}`)).status, `GET /runs/{id}${path}`).toBe(404);
    }
    const list = (await (await fetch(`${api.url}/api/v1/runs?service=del-svc`)).json()) as { runs: Array<{ id: string }> };
    expect(list.runs.map((r) => r.id)).toEqual([kept]);
    expect(await countRequests(api.db, kept)).toBe(keptEvents);

    // A spooling agent's late batch for the deleted run is refused, not resurrected.
    const late = await postJson(`${api.url}/api/v1/runs/${doomed}/events`, batchOf([{ level: 1, ts: 1_800_001_000_500, latency: 5 }], 'late-batch'));
    // (The events route names an unknown run as a bad `id`, as for any run that never existed.)
    expect(late.status).toBe(400);
    expect(JSON.stringify(late.body)).toContain('unknown run');
    expect((await fetch(`${api.url}/api/v1/runs/${doomed}`, { method: 'DELETE' })).status).toBe(404);
  }, 120_000);
});
