import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeOrphanSpills } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-spills-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spill files of a process that died mid-insert', () => {
  it('are removed; those of running processes, and other files, are kept', async () => {
    // A pid that certainly belonged to a process that has exited.
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
    const file = (name: string) => {
      writeFileSync(join(dir, name), 'x');
      return join(dir, name);
    };
    const orphan = file(`kneeboard-batch-${dead}-0b7f0f8e-1111-4a53-9a7d-3a6cbb0b0a11.arrow`);
    const ours = file(`kneeboard-batch-${process.pid}-0b7f0f8e-2222-4a53-9a7d-3a6cbb0b0a11.arrow`);
    const parents = file(`kneeboard-batch-${process.ppid}-0b7f0f8e-3333-4a53-9a7d-3a6cbb0b0a11.arrow`);
    const other = file('something-else.arrow');
    expect(await removeOrphanSpills(dir)).toBe(1);
    expect([orphan, ours, parents, other].map(existsSync)).toEqual([false, true, true, true]);
  });
});
