import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CreatedToken, ServiceHistoryResponse } from '@kneeboard/contracts';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

const SERVICE = 'history-svc';
const LEVELS = [1, 2, 4, 8];

describe('GET /api/v1/services/:service/history', () => {
  // One embedded ClickHouse per process: each describe starts its API and closes it before the next.
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => api.close());

  it('groups runs into comparable series and finds the release where peak QPS fell 20%', async () => {
    // Sequential: releases are ordered by their first run's creation time.
    for (let i = 0; i < 12; i++) {
      await storeSyntheticRun(api.url, { seed: 100 + i, service: SERVICE, release: `v${i + 1}`, levels: LEVELS, workers: 4, ...(i >= 6 ? { qpsScale: 0.8, latencyScale: 1.25 } : {}) });
    }
    // A repeat of v12 whose QPS fell with latency unchanged: fewer requests in flight than the level (Little's law), so the agent was the limit.
    const limited = await storeSyntheticRun(api.url, { seed: 300, service: SERVICE, release: 'v12', levels: LEVELS, workers: 4, qpsScale: 0.5 });
    // Another swept parameter: its own series, never joined with the concurrency one.
    await storeSyntheticRun(api.url, { seed: 200, service: SERVICE, release: 'v12', levels: LEVELS, workers: 4, parameter: 'workers' });

    const res = await fetch(`${api.url}/api/v1/services/${SERVICE}/history`);
    expect(res.status).toBe(200);
    const body = ServiceHistoryResponse.parse(await res.json());
    expect(body.runs_read).toBe(14);
    expect(body.series.map((s) => [s.series.parameter, s.series.runs.length])).toEqual([
      ['concurrency', 13],
      ['workers', 1],
    ]);
    const [main] = body.series;
    expect(main!.points.releases.map((r) => r.release)).toEqual(Array.from({ length: 12 }, (_, i) => `v${i + 1}`));
    expect(main!.points.base_knee).toBe(4);
    const v12 = main!.points.releases[11]!;
    expect(v12.runs.find((r) => r.run_id === limited)!.excluded).toMatch(/Little's law/);
    expect(v12.features.peak_qps!.runs).toBe(1);
    const qps = main!.change_points.filter((c) => c.feature === 'peak_qps');
    expect(qps.map((c) => [c.release, c.previous_release])).toEqual([['v7', 'v6']]);
    expect(qps[0]!.ratio).toBeGreaterThan(0.75);
    expect(qps[0]!.ratio).toBeLessThan(0.85);
    expect(qps[0]!.ratio_high).toBeLessThan(1);
  });

  it('is kept until a run of the service changes: a new finish, a label that regroups a run', async () => {
    const read = async () => ServiceHistoryResponse.parse(await (await fetch(`${api.url}/api/v1/services/${SERVICE}/history`)).json());
    const before = await read();
    expect(await read()).toEqual(before);
    const added = await storeSyntheticRun(api.url, { seed: 400, service: SERVICE, release: 'v13', levels: LEVELS, workers: 4, qpsScale: 0.8, latencyScale: 1.25 });
    const after = await read();
    expect(after.runs_read).toBe(before.runs_read + 1);
    expect(after.series[0]!.points.releases.at(-1)!.release).toBe('v13');
    // A series= label takes the run out of the automatic series into its own.
    const labelled = await fetch(`${api.url}/api/v1/runs/${added}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ labels: ['series=canary'] }) });
    expect(labelled.status).toBe(200);
    const regrouped = await read();
    expect(regrouped.series.find((s) => s.series.runs.includes(added))!.series.forced_by).not.toBeNull();
    expect(regrouped.series[0]!.points.releases.map((r) => r.release)).not.toContain('v13');
  });

  it('answers 404 naming the service when it has no runs, and 400 for a service name with control characters', async () => {
    const res = await fetch(`${api.url}/api/v1/services/nobody-here/history`);
    expect(res.status).toBe(404);
    expect(ApiError.parse(await res.json()).field).toBe('service');
    const bad = await fetch(`${api.url}/api/v1/services/a%0Ab/history`);
    expect(bad.status).toBe(400);
  });
});

describe('GET /api/v1/services/:service/history with KNEEBOARD_READ=token', () => {
  const ADMIN = 'test-admin-token-history-0123456789';
  let reads: TestApi;
  beforeAll(async () => {
    reads = await startTestApi({ access: { mode: 'required', read: 'token', adminToken: ADMIN } });
  });
  afterAll(async () => reads.close());

  it('is a read: 401 anonymous, 403 for an ingest token, allowed to a write token (404 here: no runs)', async () => {
    const get = (token?: string) => fetch(`${reads.url}/api/v1/services/${SERVICE}/history`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const mint = async (scope: string) =>
      CreatedToken.parse(await (await fetch(`${reads.url}/api/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: scope, scope }) })).json()).token;
    expect((await get()).status).toBe(401);
    expect((await get(await mint('ingest'))).status).toBe(403);
    expect((await get(await mint('write'))).status).toBe(404);
  });
});
