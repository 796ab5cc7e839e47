import { compareMarkdown } from '@kneeboard/analysis/compare';
import { parseLevelSelection, type CompareResponse, type HeadComparison, type MetricDelta } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { deltaCell, deltaRows, intervalKind, toneOf, verdictSummary } from './compare-table.ts';
import { testRun } from './test-runs.ts';

const delta = (over: Partial<MetricDelta> = {}): MetricDelta => ({
  base: 100,
  head: 131,
  change: 0.31,
  ci_low: 0.29,
  ci_high: 0.33,
  verdict: 'improvement',
  ...over,
});
const missing: MetricDelta = { base: 20, head: null, change: null, ci_low: null, ci_high: null, verdict: 'insufficient data' };

function head(over: Partial<HeadComparison['overall']> = {}): HeadComparison {
  return {
    run: testRun(2),
    runs: [testRun(2)],
    noise: { base_runs: 1, head_runs: 1, basis: 'within-run only', run_to_run: null, note: 'cannot separate' },
    levels: [
      { level: 1, in_base: true, in_head: true, flags: [], qps: delta(), p50_ms: delta({ base: 0.25, head: 0.26, change: 0.04, ci_low: -0.01, ci_high: 0.08, verdict: 'no significant change' }), p99_ms: delta({ base: 2, head: 3, change: 0.5, ci_low: 0.4, ci_high: 0.6, verdict: 'regression' }) },
      { level: 32, in_base: false, in_head: true, flags: [{ side: 'head', run_id: testRun(2).id, reason: 'the agent flagged concurrency 32 generator-limited' }], qps: { ...missing, base: null, head: 262 }, p50_ms: missing, p99_ms: missing },
    ],
    overall: {
      max_qps: { ...delta({ base: 99400, head: 131043 }), base_level: 50, head_level: 2000 },
      knee: { base: 50, head: 500, change: 9, base_bracket: { low: 25, high: 50 }, head_bracket: { low: 250, high: 500 }, within_grid: false },
      p99_at_base_knee: { ...delta({ base: 0.36, head: 0.8, change: 1.22, ci_low: 1.1, ci_high: 1.3, verdict: 'regression' }), level: 50 },
      verdict: 'regression',
      summary: 'v2 vs v1: max throughput +31%. Regression.',
      ...over,
    },
  };
}

describe('delta cells', () => {
  it('reads a change with its interval and verdict', () => {
    expect(deltaCell(delta({ base: 99400, head: 120797 }), 'qps')).toEqual({
      values: '99,400 → 120,797',
      change: '+31%',
      interval: '+29%…+33%',
      verdict: 'improvement',
      tone: 'improvement',
      title: 'QPS 99,400 → 120,797 req/s, change +31%, 95% interval +29%…+33%: improvement',
    });
  });

  it('says plainly when a side is missing', () => {
    const c = deltaCell(missing, 'p99_ms');
    expect(c).toMatchObject({ values: '20.0 → —', change: null, interval: null, tone: 'unknown' });
    expect(c.title).toBe('p99 20.0 → — ms: insufficient data');
  });

  it('maps verdicts to tones', () => {
    expect(['regression', 'improvement', 'no significant change', 'insufficient data'].map((v) => toneOf(v as never))).toEqual(['regression', 'improvement', 'same', 'unknown']);
  });
});

describe('delta rows', () => {
  it('one row per level in the selection, marking levels only one run has', () => {
    const rows = deltaRows(head(), null);
    expect(rows.map((r) => [r.level, r.only])).toEqual([
      [1, null],
      [32, 'head'],
    ]);
    expect(rows[0]?.p50.tone).toBe('same');
    expect(rows[0]?.p99.tone).toBe('regression');
    expect(deltaRows(head(), parseLevelSelection('2-64')).map((r) => r.level)).toEqual([32]);
  });
});

describe('verdict summary', () => {
  it('sums a head up: peak, knee shift and p99 at the base knee', () => {
    const s = verdictSummary(head(), 'workers');
    expect(s.tone).toBe('regression');
    expect(s.summary).toBe('v2 vs v1: max throughput +31%. Regression.');
    expect(s.stats).toEqual([
      { label: 'max QPS', value: '+31%', detail: '99,400 at 50 → 131,043 at 2000 req/s · 95% +29%…+33%', tone: 'improvement' },
      { label: 'knee', value: '50 → 500', detail: 'workers +900%, somewhere between 250 and 500 on this grid', tone: 'improvement' },
      { label: 'p99 at workers 50', value: '+122%', detail: '0.36 → 0.80 ms · 95% +110%…+130%', tone: 'regression' },
    ]);
  });

  it('handles unchanged and missing knees', () => {
    expect(verdictSummary(head({ knee: { base: 8, head: 8, change: 0, base_bracket: { low: 4, high: 8 }, head_bracket: { low: 4, high: 8 }, within_grid: true } }), 'c').stats[1]).toMatchObject({ value: '8', tone: 'same' });
    const none = verdictSummary(head({ knee: { base: null, head: null, change: null, base_bracket: null, head_bracket: null, within_grid: false }, p99_at_base_knee: { ...missing, level: null } }), 'c');
    expect(none.stats[1]).toMatchObject({ value: 'none', tone: 'unknown' });
    expect(none.stats[2]).toMatchObject({ label: 'p99 at base knee', value: '—', tone: 'unknown' });
  });
});

describe('flags and noise in the summary', () => {
  it('marks flagged levels not comparable with the reason, and carries what the intervals can see', () => {
    const rows = deltaRows(head(), null);
    expect(rows[0]?.flags).toEqual([]);
    expect(rows[1]?.flags).toEqual(['head: the agent flagged concurrency 32 generator-limited']);
    expect(toneOf('not comparable')).toBe('flagged');
    const s = verdictSummary(head(), 'workers');
    expect(s.notComparable).toEqual([32]);
    expect(s.noise).toEqual({ basis: 'within-run only', note: 'cannot separate', baseRuns: 1, headRuns: 1, interval: 'base 1 run · head 1 run: within-run intervals only, which cannot separate a change from run-to-run noise' });
    expect(intervalKind({ base_runs: 3, head_runs: 2, basis: 'repeats', run_to_run: null, note: '' })).toBe('base 3 runs · head 2 runs: between-run intervals (the run-to-run spread of these runs, pooled across levels, on the log scale)');
  });

  it('carries how the intervals were made and a newer noise basis, offered', () => {
    const h = head();
    const s = verdictSummary({ ...h, noise: { ...h.noise, method: 'Intervals on the log of head ÷ base from 1 base and 1 head run', newer: { runs: 3, asof: 1795000000000 } } }, 'workers');
    expect(s.noise.method).toBe('Intervals on the log of head ÷ base from 1 base and 1 head run');
    expect(s.noise.newer).toEqual({ runs: 3, asof: 1795000000000 });
  });

  it('reads two knees inside each other’s bracket as the same within the grid', () => {
    const s = verdictSummary(head({ knee: { base: 16, head: 12, change: -0.25, base_bracket: { low: 8, high: 16 }, head_bracket: { low: 8, high: 12 }, within_grid: true } }), 'c');
    expect(s.stats[1]).toMatchObject({ value: '16 → 12', tone: 'same', detail: 'within the grid: the levels swept cannot tell c 16 from 12' });
  });
});

describe('the same figures as the Markdown', () => {
  it('a level row reads in the table exactly as in the pasted Markdown (one formatting module)', () => {
    const report: CompareResponse = {
      base: testRun(1),
      base_runs: [testRun(1)],
      heads: [head()],
      settings: { confidence: 0.95, min_effect: 0.05, resamples: 1000 },
    };
    const markdownRow = compareMarkdown(report, 'workers')
      .split('\n')
      .find((line) => line.startsWith('| 1 |'));
    const [row] = deltaRows(head(), null);
    const qps = row!.qps;
    const p50 = row!.p50;
    // The page shows the change and its interval as `change [interval]`, the Markdown in parentheses.
    expect(markdownRow).toContain(`| ${qps.values} (${qps.change} [${qps.interval}]) 🟢 |`);
    expect(markdownRow).toContain(`(${p50.change} [${p50.interval}])`);
    expect(`${qps.change} [${qps.interval}]`).toBe('+31% [+29%…+33%]');
    expect(`${p50.change} [${p50.interval}]`).toBe('+4.0% [−1.0%…+8.0%]');
    expect(markdownRow).toContain(`${p50.values.split(' → ')[0]} ms → ${p50.values.split(' → ')[1]} ms`);
  });
});
