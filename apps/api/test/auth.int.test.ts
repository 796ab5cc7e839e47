import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests, listRuns } from '@kneeboard/clickhouse';
import { ApiError, CreatedToken, ListTokensResponse, RunDetail, TokenInfo } from '@kneeboard/contracts';
import { batchOf, createRun, startTestApi, type TestApi } from './helpers.ts';

const ADMIN = 'test-admin-token-0123456789abcdef';
const T0 = Date.now() - 60_000;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ access: { mode: 'required', read: 'public', adminToken: ADMIN } });
});
afterAll(async () => api.close());

async function call(method: string, path: string, token: string | undefined, body?: unknown): Promise<{ status: number; body: unknown; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${api.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown), headers: res.headers };
}

async function mint(scope: 'ingest' | 'write' | 'admin', service?: string): Promise<CreatedToken> {
  const res = await call('POST', '/api/v1/tokens', ADMIN, { name: `${scope}-${service ?? 'any'}`, scope, ...(service ? { service } : {}) });
  expect(res.status).toBe(201);
  return CreatedToken.parse(res.body);
}

const runCount = async () => (await listRuns(api.db, { limit: 500 })).length;
const step = { level: 1, started_at: T0, measure_from: T0 + 1_000, ended_at: T0 + 10_000 };
const events = (id: string) => batchOf([{ level: 1, ts: T0 + 2_000, latency: 10 }], id);

function expectError(res: { status: number; body: unknown }, status: number) {
  expect(res.status).toBe(status);
  const err = ApiError.parse(res.body);
  expect(err.field).toBe('authorization');
  return err;
}

describe('writes need a bearer token (KNEEBOARD_AUTH required)', () => {
  it('answers 401 JSON for a write without a token or with a wrong one, and writes nothing', async () => {
    const before = await runCount();
    const missing = await call('POST', '/api/v1/runs', undefined, { service: 's', release: 'r' });
    expect(expectError(missing, 401).message).toMatch(/Bearer/);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectError(await call('POST', '/api/v1/runs', 'kb_nothing_like_a_real_token', { service: 's', release: 'r' }), 401);
    expectError(await call('POST', '/api/v1/runs', `${ADMIN}x`, { service: 's', release: 'r' }), 401);
    expect(await runCount()).toBe(before);
  });

  it('still reads in public (default) read mode, and health and OpenAPI stay open', async () => {
    expect((await call('GET', '/api/v1/runs', undefined)).status).toBe(200);
    expect((await call('GET', '/healthz', undefined)).status).toBe(200);
    expect((await call('GET', '/openapi.json', undefined)).status).toBe(200);
  });

  it('refuses a live token of another scope in ?share= even on a public read (403 naming it), so its owner learns it leaked', async () => {
    for (const token of [ADMIN, (await mint('write')).token, (await mint('ingest')).token]) {
      const res = await call('GET', `/api/v1/runs?share=${encodeURIComponent(token)}`, undefined);
      expect(res.status).toBe(403);
      const err = ApiError.parse(res.body);
      expect(err.field).toBe('querystring.share');
      expect(err.message).toContain('share tokens only');
    }
    expect((await call('GET', `/api/v1/tokens?share=${ADMIN}`, undefined)).status).toBe(403);
    // Anything that is no live token leaves a public read as it was.
    expect((await call('GET', '/api/v1/runs?share=kb_nothing_like_a_real_token', undefined)).status).toBe(200);
  });

  it('lets an ingest token do exactly what an agent does, and nothing else (403)', async () => {
    const ingest = (await mint('ingest')).token;
    const created = await call('POST', '/api/v1/runs', ingest, { service: 'agent-svc', release: 'v1' });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await call('POST', `/api/v1/runs/${id}/steps`, ingest, step)).status).toBe(200);
    expect((await call('POST', `/api/v1/runs/${id}/events`, ingest, events('b1'))).status).toBe(200);
    expect((await call('GET', `/api/v1/runs/${id}`, ingest)).status).toBe(200);
    expect((await call('POST', `/api/v1/runs/${id}/finish`, ingest, { status: 'finished' })).status).toBe(200);

    expectError(await call('PATCH', `/api/v1/runs/${id}`, ingest, { note: 'hijacked' }), 403);
    expectError(await call('POST', '/api/v1/links', ingest, { path: '/runs' }), 403);
    expectError(await call('GET', '/api/v1/tokens', ingest), 403);
    expectError(await call('POST', '/api/v1/tokens', ingest, { name: 'x', scope: 'admin' }), 403);
    const detail = RunDetail.parse((await call('GET', `/api/v1/runs/${id}`, undefined)).body);
    expect(detail.run.note).toBe('');
  });

  it('lets a write token label, annotate and link, but not manage tokens', async () => {
    const write = (await mint('write')).token;
    const id = (await call('POST', '/api/v1/runs', write, { service: 'w', release: 'v1' }).then((r) => r.body as { id: string })).id;
    const patched = await call('PATCH', `/api/v1/runs/${id}`, write, { note: 'looks fine', labels: ['baseline'] });
    expect(patched.status).toBe(200);
    expect((await call('POST', '/api/v1/links', write, { path: '/runs' })).status).toBe(201);
    expectError(await call('POST', '/api/v1/tokens', write, { name: 'x', scope: 'admin' }), 403);
    expectError(await call('POST', '/api/v1/tokens', write, { name: 'x', scope: 'write' }), 403);
    expectError(await call('DELETE', '/api/v1/tokens/env_admin', write), 403);
  });

  it('lets a write token make share links (share tokens only), and no service-limited or ingest token', async () => {
    const write = (await mint('write')).token;
    const id = (await call('POST', '/api/v1/runs', write, { service: 'shared', release: 'v1' }).then((r) => r.body as { id: string })).id;
    const made = await call('POST', '/api/v1/tokens', write, { name: 'PR 1', scope: 'share', runs: [id] });
    expect(made.status).toBe(201);
    expect((made.body as { scope: string }).scope).toBe('share');
    expectError(await call('POST', '/api/v1/tokens', (await mint('write', 'shared')).token, { name: 'x', scope: 'share', runs: [id] }), 403);
    expectError(await call('POST', '/api/v1/tokens', (await mint('ingest')).token, { name: 'x', scope: 'share', runs: [id] }), 403);
    expectError(await call('GET', '/api/v1/tokens', write), 403);
  });

  it('lets a write token delete a run, and no ingest token or anonymous caller', async () => {
    const write = (await mint('write')).token;
    const id = (await call('POST', '/api/v1/runs', write, { service: 'doomed', release: 'v1' }).then((r) => r.body as { id: string })).id;
    expectError(await call('DELETE', `/api/v1/runs/${id}`, undefined), 401);
    expectError(await call('DELETE', `/api/v1/runs/${id}`, (await mint('ingest')).token), 403);
    expect((await call('GET', `/api/v1/runs/${id}`, undefined)).status).toBe(200);
    expect((await call('DELETE', `/api/v1/runs/${id}`, write)).status).toBe(204);
    expect((await call('GET', `/api/v1/runs/${id}`, undefined)).status).toBe(404);
  });

  it("holds a service-limited token to its service's runs (403 elsewhere, nothing written)", async () => {
    const limited = (await mint('ingest', 'checkout')).token;
    const other = await createRun(api.url, { service: 'search' }).catch(() => null);
    expect(other).toBeNull(); // plain createRun has no token: refused
    const write = (await mint('write')).token;
    const searchRun = (await call('POST', '/api/v1/runs', write, { service: 'search', release: 'v1' }).then((r) => r.body as { id: string })).id;

    expectError(await call('POST', '/api/v1/runs', limited, { service: 'search', release: 'v1' }), 403);
    expectError(await call('POST', `/api/v1/runs/${searchRun}/steps`, limited, step), 403);
    expectError(await call('POST', `/api/v1/runs/${searchRun}/events`, limited, events('x1')), 403);
    expect(await countRequests(api.db, searchRun)).toBe(0);

    const own = await call('POST', '/api/v1/runs', limited, { service: 'checkout', release: 'v1' });
    expect(own.status).toBe(201);
  });

  it('creates, lists (no secrets) and revokes tokens; a revoked token is refused at once', async () => {
    const created = await mint('write');
    expect(created.token).toMatch(/^kb_[a-z0-9]{10}_[A-Za-z0-9_-]{43}$/);
    const listed = ListTokensResponse.parse((await call('GET', '/api/v1/tokens', ADMIN)).body);
    expect(listed.tokens.map((t) => t.id)).toContain(created.id);
    // The secret is everything after `kb_<id>_` (it may itself contain `_`, so no split on it).
    const secret = /^kb_[a-z0-9]{10}_(.+)$/.exec(created.token)![1]!;
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(listed.tokens.find((t) => t.id === 'env_admin')?.scope).toBe('admin');

    expect((await call('POST', '/api/v1/runs', created.token, { service: 'r', release: 'v1' })).status).toBe(201);
    const revoked = await call('DELETE', `/api/v1/tokens/${created.id}`, ADMIN);
    expect(revoked.status).toBe(200);
    expect(TokenInfo.parse(revoked.body).revoked_at).not.toBeNull();
    expectError(await call('POST', '/api/v1/runs', created.token, { service: 'r', release: 'v1' }), 401);
    expect((await call('DELETE', '/api/v1/tokens/nosuchtoken', ADMIN)).status).toBe(404);
  });

  it('refuses an expired token', async () => {
    const res = await call('POST', '/api/v1/tokens', ADMIN, { name: 'short', scope: 'write', expires_at: Date.now() + 300 });
    const token = CreatedToken.parse(res.body).token;
    await new Promise((r) => setTimeout(r, 400));
    expectError(await call('POST', '/api/v1/runs', token, { service: 'r', release: 'v1' }), 401);
  });

  it('refuses an admin token limited to a service (400 naming service)', async () => {
    const res = await call('POST', '/api/v1/tokens', ADMIN, { name: 'x', scope: 'admin', service: 'checkout' });
    expect(res.status).toBe(400);
    expect(ApiError.parse(res.body).field).toBe('service');
  });
});
