import type { Capacity } from '@kneeboard/contracts';
import { parseSlos } from '@kneeboard/contracts/slo';
import { describe, expect, it } from 'vitest';
import { capacityHeadline, capacityLabel, sloLines } from '../src/index.ts';

const base: Capacity = {
  slos: ['p99<=50ms'],
  confidence: 0.95,
  samples: 'exact',
  level: 24,
  qps: 1840,
  bracket: { holds: { level: 24, qps: 1840 }, breaks: { level: 32, qps: 1900 }, crossing: { level: 27.25, qps: 1864 } },
  unclear_levels: [],
  skipped_levels: [],
  levels: [],
  summary: '',
  warnings: [],
};

describe('capacity wording', () => {
  it('states the capacity with its bracket, a lower bound when nothing broke, and why there is none', () => {
    expect(capacityHeadline(base, 'concurrency')).toBe('Capacity under p99<=50ms: 1,840 req/s at concurrency 24 (bracket 24–32, crossing ≈ 27.3)');
    expect(capacityHeadline({ ...base, bracket: { ...base.bracket, breaks: null, crossing: null } }, 'concurrency')).toBe(
      'Capacity under p99<=50ms: at least 1,840 req/s at concurrency 24 (no level judged broke the SLO)',
    );
    const none = { ...base, level: null, qps: null, bracket: { holds: null, breaks: { level: 4, qps: 10 }, crossing: null } };
    expect(capacityHeadline(none, 'rate')).toBe('No capacity under p99<=50ms: it already breaks at rate 4 and no level below holds');
    expect(capacityHeadline({ ...none, slos: ['p99<=50ms', 'errors<=1%'], bracket: { holds: null, breaks: null, crossing: null } }, 'c')).toBe(
      'No capacity under p99<=50ms, errors<=1% yet: no level holds or breaks with confidence',
    );
    expect(capacityLabel(1840)).toBe('capacity · 1,840 req/s');
  });

  it('draws a line for each latency percentile on the chart, none for errors or the Server-Timing parts', () => {
    const parsed = parseSlos('p99.9<=1s, errors<=1%, compute_p99<=5ms, p50<=250us');
    if (!parsed.ok) throw new Error(parsed.error);
    expect(sloLines(parsed.clauses)).toEqual([
      { key: 'p999_ms', ms: 1000, label: 'p99.9 ≤ 1000 ms', slo: 'p99.9<=1000ms' },
      { key: 'p50_ms', ms: 0.25, label: 'p50 ≤ 0.25 ms', slo: 'p50<=0.25ms' },
    ]);
  });
});
