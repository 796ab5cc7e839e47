import { describe, expect, it } from 'vitest';
import { DeferredWriter } from '../src/ingest/deferred-writer.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('DeferredWriter', () => {
  it('writes what arrives within one interval in one write, and nothing before the interval ends', async () => {
    const writes: number[][] = [];
    const w = new DeferredWriter<number>(async (items) => void writes.push(items), { intervalMs: 40, maxItems: 100, onError: () => {} });
    for (let i = 1; i <= 5; i++) w.add(i);
    expect(writes).toEqual([]);
    expect(w.waiting).toBe(5);
    await sleep(120);
    expect(writes).toEqual([[1, 2, 3, 4, 5]]);
    expect(w.waiting).toBe(0);
  });

  it('writes at once when maxItems wait, and items that arrive during a write go in the next one', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const w = new DeferredWriter<number>(
      async (items) => {
        writes.push(items);
        if (writes.length === 1) await gate;
      },
      { intervalMs: 10_000, maxItems: 3, onError: () => {} },
    );
    w.add(1);
    w.add(2);
    w.add(3);
    expect(writes).toEqual([[1, 2, 3]]);
    w.add(4);
    release();
    await w.flush();
    expect(writes).toEqual([[1, 2, 3], [4]]);
  });

  it('keeps a failed write\'s items, in order, reports the error, and writes them with the next attempt', async () => {
    const writes: string[][] = [];
    const errors: unknown[] = [];
    let fail = true;
    const w = new DeferredWriter<string>(
      async (items) => {
        if (fail) throw new Error('server unreachable');
        writes.push(items);
      },
      { intervalMs: 20, maxItems: 100, onError: (err) => errors.push(err) },
    );
    w.add('a');
    w.add('b');
    await sleep(60);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(String(errors[0])).toContain('server unreachable');
    w.add('c');
    await expect(w.flush()).rejects.toThrow('server unreachable');
    expect(w.waiting).toBe(3);
    fail = false;
    await w.flush();
    expect(writes.flat()).toEqual(['a', 'b', 'c']);
    expect(w.waiting).toBe(0);
  });
});
