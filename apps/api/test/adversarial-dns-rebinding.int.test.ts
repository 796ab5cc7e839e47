import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRuns } from '@kneeboard/clickhouse';
import { startTestApi, type TestApi } from './helpers.ts';
import { parseAnswer, rawRequest } from './raw-http.ts';

/**
 * The probe: on an open server (no tokens, the laptop default), `POST /runs` with
 * `Host: evil.example:6400` and `Origin: http://evil.example:6400` created a run — what a page
 * does after making its own name resolve to 127.0.0.1. Raw requests, as fetch() will not set Host.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ access: { mode: 'open', read: 'public', allowedHosts: ['kb.lan', 'dash.lan:3000'] } });
});
afterAll(async () => api.close());

const runCount = async () => (await listRuns(api.db, { limit: 500 })).length;
const RUN = JSON.stringify({ service: 'rebound', release: 'v1' });

async function post(headers: Record<string, string>, path = '/api/v1/runs', body = RUN) {
  const { answer } = rawRequest(api.url, `POST ${path}`, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close', ...headers }, body);
  return parseAnswer(await answer);
}

describe('DNS rebinding against an open server', () => {
  it('refuses POST /runs addressed to evil.example:6400 from its own origin with a 421 naming KNEEBOARD_ALLOWED_HOSTS, and creates nothing', async () => {
    const before = await runCount();
    const res = await post({ host: 'evil.example:6400', origin: 'http://evil.example:6400' });
    expect(res.status).toBe(421);
    expect(res.body?.field).toBe('host');
    expect(res.body?.message).toContain('KNEEBOARD_ALLOWED_HOSTS');
    expect(res.body?.message).toContain('evil.example:6400');
    expect(await runCount()).toBe(before);
  });

  it('refuses reads under that name too (a rebound page could read every run)', async () => {
    const { answer } = rawRequest(api.url, 'GET /api/v1/runs', { host: 'evil.example:6400', connection: 'close' });
    expect(parseAnswer(await answer).status).toBe(421);
  });

  it('refuses a proxied request whose browser addressed another name (X-Forwarded-Host), as the dashboard forwards it', async () => {
    const before = await runCount();
    const res = await post({ host: '127.0.0.1:6400', 'x-forwarded-host': 'evil.example:3000', origin: 'http://evil.example:3000' });
    expect(res.status).toBe(421);
    expect(await runCount()).toBe(before);
  });

  it('answers loopback names on any port, and the names listed in KNEEBOARD_ALLOWED_HOSTS', async () => {
    const before = await runCount();
    for (const host of ['127.0.0.1:6400', 'localhost', 'LOCALHOST:1', '[::1]:6400', 'kb.lan', 'kb.lan:8080', 'dash.lan:3000']) {
      expect((await post({ host })).status, host).toBe(201);
    }
    // The dashboard's proxy: the API's address as Host, the browser's as X-Forwarded-Host and Origin.
    expect((await post({ host: '127.0.0.1:6400', 'x-forwarded-host': 'localhost:3000', origin: 'http://localhost:3000' })).status).toBe(201);
    // A listed name with a port allows that port only.
    expect((await post({ host: 'dash.lan:3001' })).status).toBe(421);
    expect(await runCount()).toBe(before + 8);
  });

  it('keeps working for what talks to 127.0.0.1: fetch (the SDK, the agent, the dashboard server)', async () => {
    const res = await fetch(`${api.url}/api/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: RUN });
    expect(res.status).toBe(201);
  });
});
