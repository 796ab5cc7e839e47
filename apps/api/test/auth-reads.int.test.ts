import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedToken } from '@kneeboard/contracts';
import { startTestApi, type TestApi } from './helpers.ts';

const ADMIN = 'test-admin-token-0123456789abcdef';

describe('token reads (KNEEBOARD_READ=token)', () => {
  let reads: TestApi;
  beforeAll(async () => {
    reads = await startTestApi({ access: { mode: 'required', read: 'token', adminToken: ADMIN } });
  });
  afterAll(async () => reads.close());

  it('answers 401 to an anonymous read, 200 to a write token, 403 to an ingest token listing runs', async () => {
    const get = (path: string, token?: string) => fetch(`${reads.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    expect((await get('/api/v1/runs')).status).toBe(401);
    expect((await get('/api/v1/services')).status).toBe(401);
    expect((await get('/healthz')).status).toBe(200);
    const mintHere = async (scope: string) =>
      CreatedToken.parse(await (await fetch(`${reads.url}/api/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: scope, scope }) })).json()).token;
    expect((await get('/api/v1/runs', await mintHere('write'))).status).toBe(200);
    expect((await get('/api/v1/runs', await mintHere('ingest'))).status).toBe(403);
  });
});
