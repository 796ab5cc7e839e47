import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRuns } from '@kneeboard/clickhouse';
import { ApiError, RunDetail } from '@kneeboard/contracts';
import { createRun, startTestApi, type TestApi } from './helpers.ts';

const EVIL = 'http://evil.example';
const FRIEND = 'https://dash.example.com';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ corsOrigins: [FRIEND] });
});
afterAll(async () => api.close());

const runCount = async () => (await listRuns(api.db, { limit: 500 })).length;

describe('the browser cannot be turned against a Kneeboard it can reach', () => {
  it('gives an unlisted origin no CORS headers, on a preflight or a read', async () => {
    const preflight = await fetch(`${api.url}/api/v1/runs`, {
      method: 'OPTIONS',
      headers: { origin: EVIL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    const read = await fetch(`${api.url}/api/v1/runs`, { headers: { origin: EVIL } });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a listed origin with CORS headers for its own origin only', async () => {
    const preflight = await fetch(`${api.url}/api/v1/runs`, {
      method: 'OPTIONS',
      headers: { origin: FRIEND, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(FRIEND);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('refuses the simple requests a page can send cross-site without a preflight, and writes nothing', async () => {
    const before = await runCount();
    const attempts: Array<{ type?: string; body?: string; status: number }> = [
      // A form post, a text/plain fetch (JSON inside), a no-cors fetch with no body at all.
      { type: 'application/x-www-form-urlencoded', body: 'service=x&release=y', status: 403 },
      { type: 'text/plain', body: JSON.stringify({ service: 'x', release: 'y' }), status: 403 },
      { type: 'multipart/form-data; boundary=b', body: '--b--', status: 403 },
      { status: 403 },
    ];
    for (const a of attempts) {
      const res = await fetch(`${api.url}/api/v1/runs`, { method: 'POST', headers: { origin: EVIL, ...(a.type ? { 'content-type': a.type } : {}) }, body: a.body });
      expect(res.status).toBe(a.status);
      expect(ApiError.parse(await res.json()).field).toBe('origin');
    }
    // Even JSON from the hostile origin: it could only come through a preflight the API refuses.
    const json = await fetch(`${api.url}/api/v1/runs`, { method: 'POST', headers: { origin: EVIL, 'content-type': 'application/json' }, body: JSON.stringify({ service: 'x', release: 'y' }) });
    expect(json.status).toBe(403);
    const run = await createRun(api.url);
    const finish = await fetch(`${api.url}/api/v1/runs/${run}/finish`, { method: 'POST', headers: { origin: 'null' } });
    expect(finish.status).toBe(403);
    expect(RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${run}`)).json()).run.status).toBe('running');
    expect(await runCount()).toBe(before + 1);
  });

  it('refuses a text/plain or form body without an Origin too (an old browser, or a proxy that drops it)', async () => {
    const before = await runCount();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await fetch(`${api.url}/api/v1/runs`, { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify({ service: 'x', release: 'y' }) });
      expect(res.status).toBe(415);
      expect(ApiError.parse(await res.json()).field).toBe('content-type');
    }
    expect(await runCount()).toBe(before);
  });

  it('lets the page\'s own origin write (the dashboard, through its proxy) and a listed origin', async () => {
    const own = new URL(api.url);
    const viaProxy = await fetch(`${api.url}/api/v1/runs`, {
      method: 'POST',
      // The dashboard's proxy forwards the browser's Host as X-Forwarded-Host.
      headers: { origin: 'http://127.0.0.1:3000', 'x-forwarded-host': '127.0.0.1:3000', 'content-type': 'application/json' },
      body: JSON.stringify({ service: 'x', release: 'y' }),
    });
    expect(viaProxy.status).toBe(201);
    const sameOrigin = await fetch(`${api.url}/api/v1/runs`, { method: 'POST', headers: { origin: own.origin, 'content-type': 'application/json' }, body: JSON.stringify({ service: 'x', release: 'y' }) });
    expect(sameOrigin.status).toBe(201);
    const listed = await fetch(`${api.url}/api/v1/runs`, { method: 'POST', headers: { origin: FRIEND, 'content-type': 'application/json' }, body: JSON.stringify({ service: 'x', release: 'y' }) });
    expect(listed.status).toBe(201);
    expect(listed.headers.get('access-control-allow-origin')).toBe(FRIEND);
  });

  it('keeps curl and agents working: no Origin, JSON body', async () => {
    const run = await createRun(api.url);
    const res = await fetch(`${api.url}/api/v1/runs/${run}/finish`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"status":"finished"}' });
    expect(res.status).toBe(200);
  });
});
