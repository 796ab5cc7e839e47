import { ListRunsResponse, RunAnalysis, RunDetail } from '@kneeboard/contracts';
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
    expect(all.runs.map((r) => r.service)).toEqual(['demo-target', 'vector-search', 'search-api', 'report-builder', 'checkout-api', 'checkout-api']);
    const some = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs?service=checkout-api&release=v2.3.0`)).json());
    expect(some.runs.length).toBe(1);
  });

  it('serves details with their analysis, the analysis alone, and 404s', async () => {
    const res = await fetch(`${api.url}/api/v1/runs/${api.runs[0]!.run.id}`);
    const detail = RunDetail.parse(await res.json());
    expect(detail.run.id).toBe(api.runs[0]!.run.id);
    expect(detail.analysis.knee?.level).toBe(8); // seed 001
    const analysis = RunAnalysis.parse(await (await fetch(`${api.url}/api/v1/runs/${api.runs[0]!.run.id}/analysis`)).json());
    expect(analysis).toEqual(detail.analysis);
    expect((await fetch(`${api.url}/api/v1/runs/00000000-0000-4000-8000-00000000ffff`)).status).toBe(404);
  });

  it('streams snapshots and ends', async () => {
    api.restartLive();
    const res = await fetch(`${api.url}/api/v1/runs/${api.liveRunId}/live`, { signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    expect(text.split('event: snapshot').length - 1).toBeGreaterThan(3);
    const last = text.split('event: snapshot\ndata: ').at(-1)!.split('\n')[0]!;
    expect(RunDetail.parse(JSON.parse(last)).analysis.knee?.level).toBe(8); // 8 workers
    expect(text).toContain('event: end');
  });
});
