import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../testing/spawn.ts';

const TOKEN = /kb_[a-z0-9]{10}_[A-Za-z0-9_-]{43}/;
const tokensIn = (text: string) => text.match(new RegExp(TOKEN.source, 'g')) ?? [];
const dataDir = mkdtempSync(join(tmpdir(), 'kb-api-bootstrap-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const createToken = (url: string, admin: string) =>
  fetch(`${url}/api/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ci', scope: 'ingest' }) });

describe('the first admin token (KNEEBOARD_AUTH=required, no KNEEBOARD_ADMIN_TOKEN)', () => {
  it('is generated and printed on the first start only, and works across restarts', async () => {
    const env = { KNEEBOARD_DATA_DIR: dataDir, KNEEBOARD_AUTH: 'required', LOG_LEVEL: 'info' };
    const first = await startServerProcess(env, 60_000);
    let admin: string;
    try {
      // The banner is written just after the server answers its first health check.
      for (let i = 0; i < 50 && !TOKEN.test(first.output()); i++) await new Promise((r) => setTimeout(r, 100));
      const printed = tokensIn(first.output());
      expect(printed).toHaveLength(1);
      admin = printed[0] as string;
      expect((await createToken(first.url, admin)).status).toBe(201);
      const anonymous = await fetch(`${first.url}/api/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"service":"s","release":"r"}' });
      expect(anonymous.status).toBe(401);
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startServerProcess(env, 60_000);
    try {
      await new Promise((r) => setTimeout(r, 500));
      expect(tokensIn(second.output())).toEqual([]);
      expect((await createToken(second.url, admin)).status).toBe(201);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
