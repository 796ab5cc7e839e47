import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedToken } from '@kneeboard/contracts';
import { startTestApi, type TestApi } from './helpers.ts';

// Issue 28's write is an agent's: an ingest token posts server metrics; reading the cost is a read.
// (Its own file: one embedded engine per process, and server-cost.int.test.ts has an open one.)
const T0 = 1_800_000_000_000;
const step = { level: 2, started_at: T0, measure_from: T0 + 2_000, ended_at: T0 + 12_000 };
const points = Array.from({ length: 12 }, (_, i) => ({ metric: 'cpu', fn: 'rate', second: T0 / 1000 + i, value: 0.5 }));

describe('who may write and read server metrics, with tokens required', () => {
  const ADMIN = 'kb_admin_server_cost_test_0123456789abcdef';
  let secured: TestApi;
  beforeAll(async () => {
    secured = await startTestApi({ access: { mode: 'required', read: 'token', adminToken: ADMIN } });
  });
  afterAll(async () => secured.close());

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${secured.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    return res.status;
  };
  const mint = async (scope: 'ingest' | 'write') => {
    const res = await fetch(`${secured.url}/api/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: scope, scope }) });
    return CreatedToken.parse(await res.json()).token;
  };

  it('an ingest token (an agent) posts a step’s server metrics, but cannot read the cost; a write token reads it', async () => {
    const [ingest, write] = [await mint('ingest'), await mint('write')];
    const created = await fetch(`${secured.url}/api/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${ingest}`, 'content-type': 'application/json' }, body: JSON.stringify({ service: 'svc', release: 'v1' }) });
    const { id } = (await created.json()) as { id: string };
    expect(await call('POST', `/api/v1/runs/${id}/steps`, ingest, step)).toBe(200);
    expect(await call('POST', `/api/v1/runs/${id}/server-metrics`, ingest, { level: 2, source: 'process', points })).toBe(200);
    expect(await call('GET', `/api/v1/runs/${id}/cost`, ingest)).toBe(403);
    expect(await call('GET', `/api/v1/runs/${id}/cost`, write)).toBe(200);
  });
});
