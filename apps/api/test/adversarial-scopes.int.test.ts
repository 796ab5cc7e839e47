import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CreatedToken, RunDetail } from '@kneeboard/contracts';
import { startTestApi, type TestApi } from './helpers.ts';

/**
 * The probes: an `ingest` token limited to svc-a read the full detail, curve and analysis of a
 * svc-b run and `/agents` answered 200 (the README says an ingest token reads only a run's
 * status); and any token worked as `?share=` — `GET /api/v1/tokens?share=<admin token>` listed
 * every token, `?share=<write token>` read everything.
 */
const ADMIN = 'test-admin-token-0123456789abcdef';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ access: { mode: 'required', read: 'token', adminToken: ADMIN } });
});
afterAll(async () => api.close());

async function call(method: string, path: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${api.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}

async function mint(scope: 'ingest' | 'write' | 'admin', service?: string): Promise<string> {
  const res = await call('POST', '/api/v1/tokens', ADMIN, { name: `${scope}-${service ?? 'any'}`, scope, ...(service ? { service } : {}) });
  expect(res.status).toBe(201);
  return CreatedToken.parse(res.body).token;
}

describe('an ingest token reads only a run\'s status', () => {
  it('limited to svc-a: no detail, curve, analysis or agents of a svc-b run (403); its own run\'s status only', async () => {
    const ingestA = await mint('ingest', 'svc-a');
    const write = await mint('write');
    const runB = (await call('POST', '/api/v1/runs', write, { service: 'svc-b', release: 'v1' })).body as { id: string };
    const runA = (await call('POST', '/api/v1/runs', ingestA, { service: 'svc-a', release: 'v1', tags: { region: 'eu' } })).body as { id: string };

    for (const path of [`/api/v1/runs/${runB.id}`, `/api/v1/runs/${runB.id}/analysis`, `/api/v1/runs/${runB.id}/curve.csv`, `/api/v1/runs/${runB.id}/curve.svg`, `/api/v1/runs/${runB.id}/agents`, `/api/v1/runs/${runB.id}/live`]) {
      const res = await call('GET', path, ingestA);
      expect(res.status, path).toBe(403);
      expect(ApiError.parse(res.body).field).toBe('authorization');
    }
    // Its own service's run: the status, not the measurements.
    for (const path of [`/api/v1/runs/${runA.id}/analysis`, `/api/v1/runs/${runA.id}/agents`, `/api/v1/runs/${runA.id}/curve.csv`, '/api/v1/runs', '/api/v1/services']) {
      expect((await call('GET', path, ingestA)).status, path).toBe(403);
    }
    const own = await call('GET', `/api/v1/runs/${runA.id}`, ingestA);
    expect(own.status).toBe(200);
    expect(Object.keys(own.body as object)).toEqual(['run']);
    const run = (own.body as { run: Record<string, unknown> }).run;
    expect(run).toMatchObject({ id: runA.id, service: 'svc-a', status: 'running', tags: { region: 'eu' } });
    expect(run).not.toHaveProperty('note');
    expect(run).not.toHaveProperty('labels');
    // What an agent parses before replaying its spool (agent-sdk runStatus) still parses.
    expect(RunDetail.pick({ run: true }).parse(own.body).run.status).toBe('running');
    // An unknown run is still a 404 for its agent.
    expect((await call('GET', '/api/v1/runs/00000000-0000-4000-8000-000000000000', await mint('ingest'))).status).toBe(404);
    // A write token still reads the whole run.
    expect(RunDetail.parse((await call('GET', `/api/v1/runs/${runA.id}`, write)).body).curve).toEqual([]);
  });
});

describe('?share= takes share tokens only', () => {
  it('GET /api/v1/tokens?share=<admin token> lists nothing: 403 naming the reason', async () => {
    const res = await call('GET', `/api/v1/tokens?share=${ADMIN}`);
    expect(res.status).toBe(403);
    const err = ApiError.parse(res.body);
    expect(err.field).toBe('querystring.share');
    expect(err.message).toMatch(/share tokens only.*admin token.*Authorization: Bearer/);
    expect(JSON.stringify(res.body)).not.toContain('"tokens"');
  });

  it('?share=<write token> reads nothing (and no other scope either); a share token still does', async () => {
    const write = await mint('write');
    const run = (await call('POST', '/api/v1/runs', write, { service: 'shared', release: 'v1' })).body as { id: string };
    for (const token of [write, await mint('ingest'), ADMIN]) {
      for (const path of ['/api/v1/runs', `/api/v1/runs/${run.id}`, `/api/v1/runs/${run.id}/curve.svg`, '/api/v1/services']) {
        const res = await call('GET', `${path}?share=${encodeURIComponent(token)}`);
        expect(res.status, path).toBe(403);
        expect(ApiError.parse(res.body).field).toBe('querystring.share');
      }
    }
    const share = CreatedToken.parse((await call('POST', '/api/v1/tokens', write, { name: 'PR 1', scope: 'share', runs: [run.id] })).body).token;
    expect((await call('GET', `/api/v1/runs/${run.id}?share=${share}`)).status).toBe(200);
    // The same write token as a header is fine.
    expect((await call('GET', `/api/v1/runs/${run.id}`, write)).status).toBe(200);
  });
});
