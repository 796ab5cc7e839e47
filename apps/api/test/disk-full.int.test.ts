import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests, runRowsLeft } from '@kneeboard/clickhouse';
import { ApiError } from '@kneeboard/contracts';
import { batchOf, createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
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

/** n events at level 1 whose compute and queue times lie within their latency: a batch every rule accepts. */
function validBatch(batchId: string, n: number, seed: number) {
  return batchOf(
    Array.from({ length: n }, (_, i) => {
      const latency = 1 + ((seed * 31 + i * 7) % 100);
      return { level: 1, ts: stepAt(1).started_at + seed * 10_000 + i * 0.25, latency, compute: latency * 0.5, queue: latency * 0.1 };
    }),
    batchId,
  );
}

describe('a delete on a full disk', () => {
  it('answers at once (507, nothing deleted) while health checks and reads go on; with space back it deletes every row', async () => {
    const runId = await createRun(api.url, { service: 'full-delete' });
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, validBatch(`del-${i}`, 20_000, 10 + i))).status).toBe(200);
    expect(await runRowsLeft(api.db, runId)).toBeGreaterThan(60_000);

    expect(fillDisk()).toBeGreaterThan(0);
    try {
      // A deletion that cannot write (a mutation rewrites parts) must not hold the engine: the
      // health check and a read sent while it runs are answered, and so is the deletion itself.
      const deletion = fetch(`${api.url}/api/v1/runs/${runId}`, { method: 'DELETE' });
      const [health, read] = await Promise.all([fetch(`${api.url}/healthz`), fetch(`${api.url}/api/v1/runs/${runId}?exact=1`)]);
      expect(health.status).toBe(200);
      expect(read.status).toBe(200);
      const res = await deletion;
      expect(res.status, await res.clone().text()).toBe(507);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(ApiError.parse(await res.json()).message).toMatch(/^storage is full: the deletion was not stored/);
      // Refused as a whole: the run and its events are still there, and still take writes.
      expect((await fetch(`${api.url}/api/v1/runs/${runId}`)).status).toBe(200);
      expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    } finally {
      rmSync(filler, { force: true });
    }
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, validBatch('del-after', 1_000, 20))).status).toBe(200);
    expect((await fetch(`${api.url}/api/v1/runs/${runId}`, { method: 'DELETE' })).status).toBe(204);
    expect(await runRowsLeft(api.db, runId)).toBe(0);
    expect((await fetch(`${api.url}/api/v1/runs/${runId}`)).status).toBe(404);
  }, 60_000);
});
