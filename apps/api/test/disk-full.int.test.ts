import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests } from '@kneeboard/clickhouse';
import { ApiError } from '@kneeboard/contracts';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
import { randomBatch, stepAt } from './ingest-support.ts';

/**
 * A real full disk: the embedded engine's data directory on a 64 MB tmpfs (this needs root, as
 * on the CI machine), filled by a file until the kernel says ENOSPC.
 */
const mountPoint = mkdtempSync(join(tmpdir(), 'kb-full-'));
const filler = join(mountPoint, 'filler');
let api: TestApi;
beforeAll(async () => {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mountPoint]);
  api = await startTestApi({ dataDir: join(mountPoint, 'clickhouse'), limits: { minFreeBytes: 4 * 1024 * 1024 } });
}, 60_000);
afterAll(async () => {
  await api?.close();
  execFileSync('umount', ['-l', mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes until the file system is full; returns the bytes written. */
function fillDisk(): number {
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(256 * 1024, 1);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return written;
}

interface Readiness {
  ready: boolean;
  checks: { disk: { ok: boolean; message: string; free_bytes: number | null } };
}
const readiness = async () => {
  const res = await fetch(`${api.url}/readyz`);
  return { status: res.status, body: (await res.json()) as Readiness };
};

describe('a full disk', () => {
  it('is reported by /readyz, answered 507 with nothing stored, and the retry after space returns is stored once', async () => {
    const runId = await createRun(api.url);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, randomBatch('before', 1_000, 1))).status).toBe(200);
    const before = await readiness();
    expect(before.status).toBe(200);
    expect(before.body.checks.disk.ok).toBe(true);

    expect(fillDisk()).toBeGreaterThan(0);
    const full = await readiness();
    expect(full.status).toBe(503);
    expect(full.body.ready).toBe(false);
    expect(full.body.checks.disk.ok).toBe(false);
    expect(full.body.checks.disk.message).toContain('KNEEBOARD_MIN_FREE_BYTES');
    // Liveness is another question: the process is fine.
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);

    const batch = randomBatch('during', 20_000, 2);
    const res = await fetch(`${api.url}/api/v1/runs/${runId}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    expect(res.status).toBe(507);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(ApiError.parse(await res.json()).message).toMatch(/^storage is full: the batch was not stored and not acknowledged/);
    expect(await countRequests(api.db, runId)).toBe(1_000);

    rmSync(filler);
    expect((await readiness()).status).toBe(200);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, batch)).body).toEqual({ accepted: 20_000, duplicate: false });
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, batch)).body).toEqual({ accepted: 0, duplicate: true });
    expect(await countRequests(api.db, runId)).toBe(21_000);
  }, 60_000);
});
