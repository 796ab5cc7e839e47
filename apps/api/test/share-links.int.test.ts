import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CreatedToken, RunDetail } from '@kneeboard/contracts';
import { TokenAdmin } from '../src/access/token-admin.ts';
import { TokenStore } from '../src/access/token-store.ts';
import { buildApp } from '../src/app.ts';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';
import { pngSize } from '../testing/png-size.ts';

const ADMIN = 'share-test-admin-token-0123456789abcdef';

let api: TestApi;
let runA: string;
let runB: string;
let runC: string;
beforeAll(async () => {
  // Runs stored while the API is open, then a second app on the same data requiring tokens for reads.
  const open = await startTestApi();
  runA = await storeSyntheticRun(open.url, { seed: 1, service: 'shared', release: 'v1', seconds: 1 });
  runB = await storeSyntheticRun(open.url, { seed: 2, service: 'shared', release: 'v2', seconds: 1 });
  runC = await storeSyntheticRun(open.url, { seed: 3, service: 'private', release: 'v1', seconds: 1 });
  // One data directory per process: the open app stops listening, the locked one takes its storage.
  await open.app.close();
  const locked = await buildApp({ db: open.db, access: { mode: 'required', read: 'token', adminToken: ADMIN } });
  await new TokenAdmin(open.db, new TokenStore(open.db)).bootstrap(ADMIN);
  const url = await locked.listen({ port: 0, host: '127.0.0.1' });
  api = { ...open, app: locked, url, close: async () => { await locked.close(); await open.close(); } };
}, 120_000);
afterAll(async () => api.close());

async function share(runs: string[], expiresInMs?: number): Promise<CreatedToken> {
  const res = await fetch(`${api.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'share', scope: 'share', runs, ...(expiresInMs ? { expires_at: Date.now() + expiresInMs } : {}) }),
  });
  expect(res.status).toBe(201);
  return CreatedToken.parse(await res.json());
}

const get = (path: string, token?: string) => fetch(`${api.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const withShare = (path: string, token: string) => `${path}${path.includes('?') ? '&' : '?'}share=${encodeURIComponent(token)}`;

describe('read-only share links (KNEEBOARD_READ=token)', () => {
  it('shows exactly its run — detail, analysis, agents, SVG and CSV, by header or ?share= — and nothing else', async () => {
    const { token } = await share([runA]);
    expect((await get(`/api/v1/runs/${runA}`)).status).toBe(401);
    const detail = await get(`/api/v1/runs/${runA}`, token);
    expect(detail.status).toBe(200);
    expect(RunDetail.parse(await detail.json()).run.id).toBe(runA);
    for (const p of [`/api/v1/runs/${runA}/analysis`, `/api/v1/runs/${runA}/agents`, `/api/v1/runs/${runA}/curve.svg`, `/api/v1/runs/${runA}/curve.csv`]) {
      expect((await fetch(`${api.url}${withShare(p, token)}`)).status).toBe(200);
    }
    for (const p of [`/api/v1/runs/${runB}`, `/api/v1/runs/${runB}/agents`, `/api/v1/runs/${runC}/curve.svg`, '/api/v1/runs', '/api/v1/services', '/api/v1/services/shared/releases', '/api/v1/tokens']) {
      const res = await get(p, token);
      expect(res.status).toBe(403);
      expect(ApiError.parse(await res.json()).field).toBe('authorization');
    }
    const write = await fetch(`${api.url}/api/v1/runs/${runA}`, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"note":"x"}' });
    expect(write.status).toBe(403);
  });

  it('shows a comparison of its runs only, as JSON, SVG and Markdown', async () => {
    const { token } = await share([runA, runB]);
    for (const p of [`/api/v1/compare?base=${runA}&head=${runB}`, `/api/v1/compare.svg?base=${runA}&head=${runB}`, `/api/v1/compare.md?base=${runA}&head=${runB}`]) {
      expect((await fetch(`${api.url}${withShare(p, token)}`)).status).toBe(200);
    }
    expect((await get(`/api/v1/compare?base=${runA}&head=${runC}`, token)).status).toBe(403);
    expect((await get(`/api/v1/compare?base=${runA},${runC}&head=${runB}`, token)).status).toBe(403);
  });

  it('serves the PNG embeds of its run and its comparison through ?share=, and no other run\'s', async () => {
    const { token } = await share([runA, runB]);
    for (const p of [`/api/v1/runs/${runA}.png?scale=1`, `/api/v1/compare.png?base=${runA}&head=${runB}&scale=1`]) {
      const res = await fetch(`${api.url}${withShare(p, token)}`);
      expect(res.status).toBe(200);
      expect(pngSize(Buffer.from(await res.arrayBuffer())).width).toBeGreaterThan(100);
    }
    expect((await fetch(`${api.url}${withShare(`/api/v1/runs/${runC}.png`, token)}`)).status).toBe(403);
    expect((await fetch(`${api.url}/api/v1/runs/${runA}.png`)).status).toBe(401);
  });

  it('stops working when revoked or expired', async () => {
    const created = await share([runA]);
    expect((await get(`/api/v1/runs/${runA}`, created.token)).status).toBe(200);
    await fetch(`${api.url}/api/v1/tokens/${created.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
    expect((await get(`/api/v1/runs/${runA}`, created.token)).status).toBe(401);
    const short = await share([runA], 300);
    await new Promise((r) => setTimeout(r, 400));
    expect((await fetch(`${api.url}${withShare(`/api/v1/runs/${runA}/curve.svg`, short.token)}`)).status).toBe(401);
  });

  it('refuses a share token without runs, and runs on another scope (400 naming runs)', async () => {
    for (const body of [{ name: 's', scope: 'share' }, { name: 'w', scope: 'write', runs: [runA] }]) {
      const res = await fetch(`${api.url}/api/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(400);
      expect(ApiError.parse(await res.json()).field).toBe('runs');
    }
  });
});
