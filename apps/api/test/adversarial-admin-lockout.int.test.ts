import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ListTokensResponse, TokenInfo } from '@kneeboard/contracts';
import { announceAccess } from '../src/access/announce.ts';
import { resolveAccess } from '../src/access/config.ts';
import { ENV_ADMIN_ID } from '../src/access/token-admin.ts';
import { parseEnv } from '../src/env.ts';
import { startTestApi, type TestApi } from './helpers.ts';

/**
 * The probe: one click on Revoke on the row of the KNEEBOARD_ADMIN_TOKEN token locked the admin
 * out; a restart with the same environment stayed 401, and nothing said why or what to do.
 */
const ADMIN = 'test-admin-token-0123456789abcdef';
const NEW_ADMIN = 'test-admin-token-fedcba9876543210';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ access: { mode: 'required', read: 'public', adminToken: ADMIN } });
});
afterAll(async () => api.close());

const revoke = (query: string) => fetch(`${api.url}/api/v1/tokens/${ENV_ADMIN_ID}${query}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
const listWith = (token: string) => fetch(`${api.url}/api/v1/tokens`, { headers: { authorization: `Bearer ${token}` } });

/** What the start-up says, as server.ts calls it, captured. */
async function startUpLines(adminToken: string): Promise<{ level: string; msg: string }[]> {
  const lines: { level: string; msg: string }[] = [];
  const log = { info: (_o: object, msg: string) => void lines.push({ level: 'info', msg }), error: (_o: object, msg: string) => void lines.push({ level: 'error', msg }) };
  const config = { ...parseEnv({ KNEEBOARD_ADMIN_TOKEN: adminToken }), access: resolveAccess({ auth: 'required', host: '127.0.0.1', adminToken, read: 'public' }) };
  await announceAccess(log, api.db, config);
  return lines;
}

describe('the bootstrap admin token (KNEEBOARD_ADMIN_TOKEN)', () => {
  it('is not revoked by a bare DELETE, nor with the wrong name: 400 naming confirm, and it keeps working', async () => {
    for (const query of ['', '?confirm=', '?confirm=env_admin', '?confirm=kneeboard_admin_token']) {
      const res = await revoke(query);
      expect(res.status, query).toBe(400);
      const err = ApiError.parse(await res.json());
      expect(err.field).toBe('querystring.confirm');
      expect(err.message).toContain('?confirm=KNEEBOARD_ADMIN_TOKEN');
    }
    expect((await listWith(ADMIN)).status).toBe(200);
    // No start-up complaint while it is live.
    expect((await startUpLines(ADMIN)).filter((l) => l.level === 'error')).toEqual([]);
  });

  it('is revoked with ?confirm=<its name>; the next start-up says so and how to recover, and a new value recovers', async () => {
    const res = await revoke('?confirm=KNEEBOARD_ADMIN_TOKEN');
    expect(res.status).toBe(200);
    expect(TokenInfo.parse(await res.json()).revoked_at).not.toBeNull();
    expect((await listWith(ADMIN)).status).toBe(401);

    // A restart with the same environment: still 401, and an error line naming the way out.
    const errors = (await startUpLines(ADMIN)).filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toMatch(/KNEEBOARD_ADMIN_TOKEN was revoked/);
    expect(errors[0]?.msg).toMatch(/set KNEEBOARD_ADMIN_TOKEN to a new value .* and restart/);
    expect((await listWith(ADMIN)).status).toBe(401);

    // The way out it names works: a new value becomes env_admin again, live.
    expect((await startUpLines(NEW_ADMIN)).filter((l) => l.level === 'error')).toEqual([]);
    // This process learns of a token written by another (here: the start-up's) at its next re-read, within 5 s.
    let listed = await listWith(NEW_ADMIN);
    for (let i = 0; i < 80 && listed.status === 401; i++) {
      await new Promise((r) => setTimeout(r, 100));
      listed = await listWith(NEW_ADMIN);
    }
    expect(listed.status).toBe(200);
    const row = ListTokensResponse.parse(await listed.json()).tokens.find((t) => t.id === ENV_ADMIN_ID);
    expect(row?.revoked_at).toBeNull();
    expect((await listWith(ADMIN)).status).toBe(401);
  });

  it('other tokens are revoked as before, without a confirmation', async () => {
    const created = await fetch(`${api.url}/api/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${NEW_ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ci', scope: 'ingest' }) });
    const { id } = (await created.json()) as { id: string };
    const res = await fetch(`${api.url}/api/v1/tokens/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${NEW_ADMIN}` } });
    expect(res.status).toBe(200);
  });
});
