import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunDetail } from '@kneeboard/contracts';
import { batchOf, createRun, postJson } from './helpers.ts';
import { startServerProcess } from '../testing/spawn.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'kb-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('data survives an API restart', () => {
  it('a run, its steps and its events are all there after the process is stopped and started again', async () => {
    const first = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
    const runId = await createRun(first.url, { release: 'v9.9.9' });
    const t = 1_800_000_000_000;
    await postJson(`${first.url}/api/v1/runs/${runId}/steps`, { level: 3, started_at: t, measure_from: t, ended_at: t + 1_000 });
    const rows = Array.from({ length: 300 }, (_, i) => ({ level: 3, ts: t + i * 3, latency: 10 + (i % 7) }));
    expect((await postJson(`${first.url}/api/v1/runs/${runId}/events`, batchOf(rows, 'persist'))).status).toBe(200);
    await postJson(`${first.url}/api/v1/runs/${runId}/finish`, {});
    const before = RunDetail.parse(await (await fetch(`${first.url}/api/v1/runs/${runId}`)).json());
    expect(await first.stop()).toBe(0);

    const second = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
    try {
      const after = RunDetail.parse(await (await fetch(`${second.url}/api/v1/runs/${runId}`)).json());
      expect(after).toEqual(before);
      expect(after.curve[0]?.requests).toBe(300);
      expect(after.run.status).toBe('finished');
      // Migrations are recorded, not re-run: a replay of the batch is still recognised.
      const replay = await postJson(`${second.url}/api/v1/runs/${runId}/events`, batchOf(rows, 'persist'));
      expect(replay.body).toEqual({ accepted: 0, duplicate: true });
    } finally {
      await second.stop();
    }
  });

  it('a bad environment variable stops start-up with a message naming it', async () => {
    // The wait is for the process to load and read its environment (about 9 s seen with both cores busy).
    await expect(startServerProcess({ KNEEBOARD_DATA_DIR: dataDir, PORT: 'eighty' }, 40_000)).rejects.toThrow(/PORT/);
  });
});
