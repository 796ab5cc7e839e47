import { describe, expect, it } from 'vitest';
import { SlotPool } from '../src/slot-pool.ts';

describe('SlotPool', () => {
  it('grants free slots at once and queues the rest in arrival order', () => {
    const pool = new SlotPool(2);
    const granted: number[] = [];
    for (let i = 0; i < 5; i++) pool.acquire(() => granted.push(i));
    expect(granted).toEqual([0, 1]);
    expect(pool.queued).toBe(3);
    pool.release();
    expect(granted).toEqual([0, 1, 2]);
    pool.release();
    pool.release();
    expect(granted).toEqual([0, 1, 2, 3, 4]);
    expect(pool.inUse).toBe(2);
    expect(pool.queued).toBe(0);
  });

  it('skips a waiter that cancelled, and cancelling after the grant changes nothing', () => {
    const pool = new SlotPool(1);
    const granted: string[] = [];
    const cancelFirst = pool.acquire(() => granted.push('a'));
    const cancelB = pool.acquire(() => granted.push('b'));
    pool.acquire(() => granted.push('c'));
    cancelB();
    expect(pool.queued).toBe(1);
    cancelFirst();
    expect(pool.inUse).toBe(1);
    pool.release();
    expect(granted).toEqual(['a', 'c']);
    expect(pool.queued).toBe(0);
  });

  it('refuses a release without a held slot', () => {
    expect(() => new SlotPool(1).release()).toThrow(/without a held slot/);
  });

  it('keeps FIFO order across the internal compaction of a long queue', () => {
    const pool = new SlotPool(1);
    const granted: number[] = [];
    for (let i = 0; i < 5000; i++) pool.acquire(() => granted.push(i));
    for (let i = 0; i < 4999; i++) pool.release();
    expect(granted).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });
});

describe('SlotPool.pause/resume', () => {
  it('grants nothing while paused, then serves the queue in order', () => {
    const pool = new SlotPool(2);
    const granted: number[] = [];
    pool.pause();
    for (const i of [1, 2, 3]) pool.acquire(() => granted.push(i));
    expect(granted).toEqual([]);
    expect(pool.queued).toBe(3);
    pool.resume();
    expect(granted).toEqual([1, 2]);
    pool.release();
    expect(granted).toEqual([1, 2, 3]);
  });

  it('keeps a released slot idle while paused', () => {
    const pool = new SlotPool(1);
    const granted: number[] = [];
    pool.acquire(() => granted.push(1));
    pool.acquire(() => granted.push(2));
    pool.pause();
    pool.release();
    expect(granted).toEqual([1]);
    pool.resume();
    expect(granted).toEqual([1, 2]);
  });
});
