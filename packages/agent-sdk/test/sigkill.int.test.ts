import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KneeboardApi, replaySpool } from '../src/index.ts';
import { FakeApi } from '../testing/fake-api.ts';

const SCRIPT = fileURLToPath(new URL('./support/record-then-hang.ts', import.meta.url));
let fake: FakeApi;
beforeAll(async () => {
  fake = await FakeApi.start();
});
afterAll(async () => {
  await fake.close();
});

describe('an agent killed with SIGKILL', () => {
  it('loses nothing it had spooled: a replay stores every event once and finishes the orphaned run as aborted', async () => {
    const spoolDir = mkdtempSync(join(tmpdir(), 'kb-sigkill-'));
    fake.failNext('events', 100_000, 503);
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, fake.url, spoolDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const runId = await new Promise<string>((resolve, reject) => {
      let out = '';
      // It takes well under a second here; on a starved box, say where the child stopped rather than time out mute.
      const giveUp = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`no "spooled" from the child after 45 s; it said: ${JSON.stringify(out)}`));
      }, 45_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^spooled (\S+)$/m.exec(out);
        if (m) {
          clearTimeout(giveUp);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(giveUp);
        reject(new Error(`exited ${code} before spooling: ${out}`));
      });
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(fake.events(runId)).toHaveLength(0);

    fake.clearFailures();
    const api = new KneeboardApi({ baseUrl: fake.url });
    const report = await replaySpool({ api, spoolDir });
    await api.close();
    expect(report).toMatchObject({ runs: 1, events: 1_000, rejected: 0, remaining: 0, skipped: 0 });
    expect(fake.events(runId)).toHaveLength(1_000);
    expect(fake.finishes).toEqual([{ runId, status: 'aborted' }]);
    expect(existsSync(join(spoolDir, runId))).toBe(false);
  }, 90_000);
});
