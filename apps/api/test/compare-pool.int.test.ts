import { compareGroups, type RunGroup } from '@kneeboard/analysis/compare';
import { afterEach, describe, expect, it } from 'vitest';
import { ComparePool } from '../src/services/compare-pool.ts';

const group = (label: string, shift: number): RunGroup => ({
  label,
  runs: [
    {
      label,
      run_id: label,
      curve: [],
      knee: null,
      samples: [{ level: 1, per_second_ok: [100 + shift, 101 + shift, 99 + shift, 100 + shift], latencies: Array.from({ length: 200 }, (_, i) => 10 + shift + (i % 7)) }],
    },
  ],
});

let pool: ComparePool | undefined;
afterEach(async () => pool?.close());

describe('ComparePool', () => {
  it('starts no worker until asked; warm() starts one, which the first comparison then uses', async () => {
    pool = new ComparePool(2);
    expect(pool.workers).toBe(0);
    pool.warm();
    pool.warm();
    expect(pool.workers).toBe(1);
    const options = { minEffect: 0.05, seed: 7, parameter: 'concurrency' };
    const inWorker = await pool.compare(group('base', 0), group('head', 5), options);
    expect(pool.workers).toBe(1);
    // The worker computes exactly what the same call computes in this thread.
    expect(inWorker).toEqual(compareGroups(group('base', 0), group('head', 5), options));
  });
});
