import { describe, expect, it } from 'vitest';
import { QueueFull, WorkQueue } from '../src/services/work-queue.ts';

/** A job that finishes when the test says so. */
function gated() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return { open, job: async () => gate };
}

describe('WorkQueue', () => {
  it('runs at most `concurrency` jobs, queues `queue` more, refuses the rest at once', async () => {
    const q = new WorkQueue(2, 3);
    const gates = Array.from({ length: 8 }, gated);
    const outcomes = gates.map((g) => q.run(g.job).then(() => 'done', (err: unknown) => (err instanceof QueueFull ? 'full' : 'other')));
    await Promise.resolve();
    expect([q.running, q.waiting]).toEqual([2, 3]);
    // The last three were refused without waiting for anything.
    expect(await Promise.all(outcomes.slice(5))).toEqual(['full', 'full', 'full']);
    for (const g of gates) g.open();
    expect(await Promise.all(outcomes.slice(0, 5))).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(q.peak).toBe(2);
    expect([q.running, q.waiting]).toEqual([0, 0]);
  });

  it('hands a freed slot to the oldest waiter, first come first served', async () => {
    const q = new WorkQueue(1, 5);
    const order: number[] = [];
    const first = gated();
    const running = q.run(first.job);
    const waiting = [1, 2, 3].map((i) => q.run(async () => void order.push(i)));
    first.open();
    await Promise.all([running, ...waiting]);
    expect(order).toEqual([1, 2, 3]);
    expect(q.peak).toBe(1);
  });

  it('frees the slot when a job fails', async () => {
    const q = new WorkQueue(1, 0);
    await expect(q.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await q.run(async () => 7)).toBe(7);
  });
});
