import { capacityUnderSlos } from '@kneeboard/analysis';
import { parseSlos } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { activeSlo, runSloTag, snapshotCapacity } from './capacity-view.ts';
import { seedCurve } from './test-runs.ts';

describe('the SLOs a run page judges by', () => {
  it("reads the run's slo tag canonically and ignores one that does not parse", () => {
    expect(runSloTag({ tags: { slo: 'p99 <= 0.05s, errors<=1%' } })).toBe('p99<=50ms,errors<=1%');
    expect(runSloTag({ tags: { slo: 'p98<=50ms' } })).toBeNull();
    expect(runSloTag({ tags: {} })).toBeNull();
    expect(activeSlo(null, { tags: { slo: 'p99<=50ms' } })?.source).toBe('tag');
    expect(activeSlo('p50<=5ms', { tags: { slo: 'p99<=50ms' } })).toEqual({ text: 'p50<=5ms', clauses: [{ metric: 'p50', max_ms: 5 }], source: 'url' });
    expect(activeSlo('none', { tags: { slo: 'p99<=50ms' } })).toBeNull();
  });
});

describe('snapshotCapacity', () => {
  it("takes a live snapshot's capacity when it reads, and nothing otherwise", () => {
    const parsed = parseSlos('p99<=100ms');
    if (!parsed.ok) throw new Error(parsed.error);
    const capacity = capacityUnderSlos({ curve: seedCurve(), slos: parsed.clauses, parameter: 'concurrency' });
    expect(snapshotCapacity(JSON.parse(JSON.stringify({ run: {}, capacity })))).toEqual(capacity);
    expect(snapshotCapacity({ run: {} })).toBeNull();
    expect(snapshotCapacity({ capacity: { slos: 'p99<=100ms' } })).toBeNull();
    expect(snapshotCapacity(null)).toBeNull();
  });
});
