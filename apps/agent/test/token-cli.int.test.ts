import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { ListRunsResponse, TokenInfo } from '@kneeboard/contracts';
import { startServerProcess, type ServerProcess } from '@kneeboard/api/testing';
import { coordinatorReadProblem } from '../src/fleet/fleet-api.ts';
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

  // Last: it locks the admin token out for the rest of this server's life.
  it('revokes env_admin (KNEEBOARD_ADMIN_TOKEN) only with --confirm naming it', async () => {
    const refused = await cli(['token', 'revoke', 'env_admin', '--token', ADMIN]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('DELETE /api/v1/tokens/env_admin: 400');
    expect(refused.stderr).toContain('revoking env_admin, the admin token KNEEBOARD_ADMIN_TOKEN sets, locks out everyone using it');
    expect(refused.stderr).toContain('--confirm KNEEBOARD_ADMIN_TOKEN');
    const wrong = await cli(['token', 'revoke', 'env_admin', '--confirm', 'env_admin', '--token', ADMIN]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('(field querystring.confirm)');
    // Neither touched it: the admin token still works.
    expect((await cli(['token', 'list', '--token', ADMIN])).code).toBe(0);

    const revoked = await cli(['token', 'revoke', 'env_admin', '--confirm', 'KNEEBOARD_ADMIN_TOKEN', '--token', ADMIN]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('revoked env_admin (KNEEBOARD_ADMIN_TOKEN)');
    const after = await cli(['token', 'list', '--token', ADMIN]);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('401');
  });
});

// A server with token reads: an ingest token reads a run's status alone, not the curve and agents a coordinator reads.
describe('kneeboard sweep --agents on a server with KNEEBOARD_READ=token', { timeout: 180_000 }, () => {
  const readDir = mkdtempSync(join(tmpdir(), 'kb-token-read-'));
  let reads: ServerProcess;
  beforeAll(async () => {
    reads = await startServerProcess({ KNEEBOARD_DATA_DIR: readDir, KNEEBOARD_ADMIN_TOKEN: ADMIN, KNEEBOARD_READ: 'token' }, 90_000);
  }, 120_000);
  afterAll(async () => {
    await reads?.stop();
    rmSync(readDir, { recursive: true, force: true });
  });
  const create = async (scope: string) => {
    const res = await fetch(`${reads.url}/api/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `coordinator ${scope}`, scope }) });
    expect(res.status).toBe(201);
    return ((await res.json()) as { token: string }).token;
  };

  it('refuses an ingest token before making a run, naming the write token it needs; a write token passes', async () => {
    const ingestToken = await create('ingest');
    const r = await runCli(['sweep', '--target', target.url, '-c', '2', '--duration', '1s', '--service', 'demo', '--release', 'coord', '--agents', '2', '--api', reads.url, '--token', ingestToken], 60_000).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('KNEEBOARD_READ=token');
    expect(r.stderr).toContain('Give the coordinator a write token');
    expect(r.stderr).not.toMatch(/at .*\.ts:\d+/); // a sentence, not a stack
    const listed = ListRunsResponse.parse(await (await fetch(`${reads.url}/api/v1/runs`, { headers: { authorization: `Bearer ${ADMIN}` } })).json());
    expect(listed.runs).toHaveLength(0);

    expect(await coordinatorReadProblem(reads.url, await create('write'))).toBeNull();
    expect(await coordinatorReadProblem(reads.url, ingestToken)).toContain('403');
    expect(await coordinatorReadProblem(api.url, ingestToken)).toBeNull(); // public reads: anything goes
  });
});
