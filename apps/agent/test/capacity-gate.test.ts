import { describe, expect, it } from 'vitest';
import { compareCapacity } from '@kneeboard/analysis';
import { Capacity } from '@kneeboard/contracts';
import { capacityGate } from '../src/compare/gate.ts';

/** A run's capacity as the API answers it: the QPS of the level that holds and of the first that breaks. */
const run = (holds: number | null, breaks: number | null): Capacity =>
  Capacity.parse({
    slos: ['p99<=50ms'],
    confidence: 0.95,
    samples: 'exact',
    level: holds === null ? null : 1,
    qps: holds,
    bracket: { holds: holds === null ? null : { level: 1, qps: holds }, breaks: breaks === null ? null : { level: 2, qps: breaks }, crossing: null },
    unclear_levels: [],
    skipped_levels: [],
    levels: [],
    summary: '',
    warnings: [],
  });

describe('capacityGate (--fail-on-capacity-drop)', () => {
  const base = [run(400, 410)];
  it('fails on a significant drop of at least the threshold, naming the head in the reason', () => {
    const gate = capacityGate([compareCapacity(base, [run(300, 320)], 'v2')], 0.05);
    expect(gate.failed).toBe(true);
    expect(gate.reasons).toEqual([expect.stringMatching(/^v2 serves −25% \[−27%…−20%\] within p99<=50ms/)]);
  });

  it('passes a drop smaller than the threshold, one the brackets cannot tell from none, and a gain', () => {
    expect(capacityGate([compareCapacity(base, [run(380, 390)], 'v2')], 0.1).failed).toBe(false); // −5%, significant, under 10%
    expect(capacityGate([compareCapacity([run(400, 800)], [run(300, 600)], 'v2')], 0.05).failed).toBe(false); // overlapping brackets
    expect(capacityGate([compareCapacity(base, [run(500, 520)], 'v2')], 0.05).failed).toBe(false);
  });

  it('judges every head: one dropping head fails the gate', () => {
    const gate = capacityGate([compareCapacity(base, [run(500, 520)], 'v2'), compareCapacity(base, [run(200, 210)], 'v3')], 0.05);
    expect(gate.failed).toBe(true);
    expect(gate.reasons).toHaveLength(1);
    expect(gate.reasons[0]).toMatch(/^v3 /);
  });
});
