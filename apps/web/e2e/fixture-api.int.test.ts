import { ListRunsResponse, RunDetail } from '@kneeboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApi, type FixtureApi } from './fixture-api.ts';

describe('fixture API', () => {
  let api: FixtureApi;
  beforeAll(async () => {
    api = await startFixtureApi({ liveStepMs: 50 });
  });
  afterAll(async () => {
    await api.close();
  });

  it('serves the list newest first, filtered, in the contract shape', async () => {
    const all = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs`)).json());
    expect(all.runs.map((r) => r.service)).toEqual(['demo-target', 'vector-search', 'checkout-api', 'checkout-api']);
    const some = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs?service=checkout-api&release=v2.3.0`)).json());
    expect(some.runs.length).toBe(1);
  });

  it('serves details and 404s', async () => {
    const res = await fetch(`${api.url}/api/v1/runs/${api.runs[0]!.run.id}`);
    expect(RunDetail.parse(await res.json()).run.id).toBe(api.runs[0]!.run.id);
    expect((await fetch(`${api.url}/api/v1/runs/00000000-0000-4000-8000-00000000ffff`)).status).toBe(404);
  });

  it('streams snapshots and ends', async () => {
    api.restartLive();
    const res = await fetch(`${api.url}/api/v1/runs/${api.liveRunId}/live`, { signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    expect(text.split('event: snapshot').length - 1).toBeGreaterThan(3);
    expect(text).toContain('event: end');
  });
});
