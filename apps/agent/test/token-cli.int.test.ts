import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { ListRunsResponse, TokenInfo } from '@kneeboard/contracts';
import { startServerProcess, type ServerProcess } from '@kneeboard/api/testing';
import { runCli } from './support/run-cli.ts';

const ADMIN = 'cli-test-admin-token-0123456789abcdef';
const dataDir = mkdtempSync(join(tmpdir(), 'kb-token-cli-'));
const spoolDir = mkdtempSync(join(tmpdir(), 'kb-token-spool-'));
let api: ServerProcess;
let target: DemoTarget;

beforeAll(async () => {
  // An admin token set: tokens are required, as on a team's server.
  [api, target] = await Promise.all([startServerProcess({ KNEEBOARD_DATA_DIR: dataDir, KNEEBOARD_ADMIN_TOKEN: ADMIN }, 90_000), startDemoTarget({ workers: 4, serviceMs: 2, port: 0 })]);
}, 120_000);
afterAll(async () => {
  await Promise.all([api?.stop(), target?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(spoolDir, { recursive: true, force: true });
});

const cli = (args: string[], env: Record<string, string> = {}) => runCli([...args, '--api', api.url], 60_000, env).done;
const sweep = (env: Record<string, string>, ...extra: string[]) =>
  cli(['sweep', '--target', target.url, '-c', '1,2', '--duration', '1s', '--warmup', '200ms', '--service', 'demo', '--release', 'tok', '--delivery-timeout', '2s', '--spool-dir', spoolDir, ...extra], env);
const runs = async () => ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs?service=demo`)).json()).runs;

// Each test starts the CLI several times (seconds each on a busy 2-core box): generous guards, not measurements.
describe('kneeboard token create|list|revoke, and a sweep with --token / KNEEBOARD_TOKEN', { timeout: 180_000 }, () => {
  let ingest: string;
  let ingestId: string;

  it('creates an ingest token with the admin token from KNEEBOARD_TOKEN, printing the secret once', async () => {
    const r = await cli(['token', 'create', '--name', 'load agents', '--scope', 'ingest', '--service', 'demo'], { KNEEBOARD_TOKEN: ADMIN });
    expect(r.code).toBe(0);
    ingest = r.stdout.trim();
    expect(ingest).toMatch(/^kb_[a-z0-9]{10}_\S{43}$/);
    ingestId = ingest.split('_')[1] as string;
    expect(r.stderr).toContain(`token ${ingestId} (ingest, service demo) created`);

    const list = await cli(['token', 'list', '--json', '--token', ADMIN]);
    expect(list.code).toBe(0);
    const tokens = TokenInfo.array().parse(JSON.parse(list.stdout));
    expect(tokens.find((t) => t.id === ingestId)).toMatchObject({ scope: 'ingest', service: 'demo', revoked_at: null });
    expect(list.stdout).not.toContain(ingest);
  });

  it('refuses token commands without an admin token (exit 1, a hint), or with the ingest token', async () => {
    const none = await cli(['token', 'list']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/401.*--token or KNEEBOARD_TOKEN/);
    const weak = await cli(['token', 'create', '--name', 'escalate', '--scope', 'admin', '--token', ingest]);
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/403/);
  });

  it('sweeps with the ingest token; without one the run is never created', async () => {
    const denied = await sweep({});
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/401/);
    expect(await runs()).toHaveLength(0);

    const ok = await sweep({ KNEEBOARD_TOKEN: ingest });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const stored = await runs();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.status).toBe('finished');
    expect(stored[0]?.requests).toBeGreaterThan(0);
  });

  it('creates a share token for one run; without --run it is a usage error', async () => {
    const run = (await runs())[0]?.id as string;
    const r = await cli(['token', 'create', '--name', 'pr 123', '--scope', 'share', '--run', run, '--expires-in', '30d', '--token', ADMIN]);
    expect(r.code).toBe(0);
    const link = r.stdout.trim();
    expect((await fetch(`${api.url}/api/v1/runs/${run}/curve.svg?share=${link}`)).status).toBe(200);
    const bad = await cli(['token', 'create', '--name', 'x', '--scope', 'share', '--token', ADMIN]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--run: a share token needs runs');
  });

  it('revokes the token; the next sweep with it is refused', async () => {
    const r = await cli(['token', 'revoke', ingestId, '--token', ADMIN]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`revoked ${ingestId}`);
    const after = await sweep({}, '--token', ingest);
    expect(after.code).toBe(1);
    expect(await runs()).toHaveLength(1);
  });
});
