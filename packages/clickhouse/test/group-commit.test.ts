import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/ingest/group-commit.ts';

describe('GroupCommit', () => {
  it('writes items that arrive while a write is in flight together, and settles each caller with its write', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const commit = new GroupCommit<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await gate;
    });
    const first = commit.add(1);
    await Promise.resolve();
    await Promise.resolve();
    const rest = [commit.add(2), commit.add(3), commit.add(4)];
    release();
    await Promise.all([first, ...rest]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
  });

  it('rejects exactly the callers whose write failed', async () => {
    let calls = 0;
    const commit = new GroupCommit<string>(async () => {
      calls += 1;
      if (calls === 1) throw new Error('disk full');
    });
    await expect(commit.add('a')).rejects.toThrow('disk full');
    await expect(commit.add('b')).resolves.toBeUndefined();
  });
});
