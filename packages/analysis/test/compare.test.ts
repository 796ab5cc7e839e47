import { describe, expect, it } from 'vitest';
import { bootstrapQuantiles, compareRuns, createSampler, seedFrom } from '../src/compare/index.ts';
import { quantile, syntheticRun } from './fixtures/compare-runs.ts';

const options = (seed: number) => ({ minEffect: 0.05, seed, parameter: 'concurrency', resamples: 1000 });

describe('bootstrapQuantiles', () => {
  it('centres on the sample quantile and narrows with more data', () => {
    const sampler = createSampler(7);
    const width = (n: number) => {
      const sorted = Float64Array.from({ length: n }, (_, i) => i / n).sort();
      const reps = Float64Array.from(bootstrapQuantiles(sorted, 0.5, 2000, sampler)).sort();
      expect(quantile([...reps], 0.5)).toBeCloseTo(0.5, 1);
      return (reps[1949] as number) - (reps[49] as number);
    };
    expect(width(10_000)).toBeLessThan(width(100) / 5);
  });
});

describe('compareRuns', () => {
  it('calls a known 20% throughput loss and 25% slower latency a regression at every level', () => {
    const base = syntheticRun(1, { label: 'v1.0' });
    const head = syntheticRun(2, { label: 'v1.1', qpsScale: 0.8, latencyScale: 1.25 });
    const { levels, overall } = compareRuns(base, head, options(seedFrom('a', 'b')));
    for (const row of levels) {
      expect(row.qps.verdict).toBe('regression');
      expect(row.p50_ms.verdict).toBe('regression');
      expect(row.qps.change).toBeCloseTo(-0.2, 1);
      expect(row.qps.ci_low as number).toBeLessThan(row.qps.change as number);
      expect(row.qps.ci_high as number).toBeGreaterThan(row.qps.change as number);
    }
    expect(overall.verdict).toBe('regression');
    expect(overall.max_qps.verdict).toBe('regression');
    expect(overall.p99_at_base_knee.level).toBe(4);
    expect(overall.max_qps.change as number).toBeCloseTo(-0.2, 1);
    // The headline names every regression of the table, with its interval.
    expect(overall.summary).toMatch(/^v1\.1 vs v1\.0: max throughput −\d+% \[−\d+%…−\d+%\] \(\d+ → \d+ req\/s\).*\. Regression: QPS regressed at concurrency 1 \(−\d+% \[−\d+%…−\d+%\]\), 2 .* and 16 \(.*\); p50 regressed at concurrency 1 .*\. Single runs: run-to-run noise not measured\.$/);
    expect(overall.regressions?.filter((r) => r.metric === 'qps').map((r) => r.level)).toEqual([1, 2, 4, 8, 16]);
  });

  it('calls a known improvement an improvement', () => {
    const { overall, levels } = compareRuns(syntheticRun(3, { label: 'a' }), syntheticRun(4, { label: 'b', qpsScale: 1.3, latencyScale: 0.7 }), options(9));
    expect(overall.verdict).toBe('improvement');
    expect(levels.every((l) => l.p50_ms.verdict === 'improvement')).toBe(true);
  });

  it('calls a 3% shift no significant change', () => {
    const { overall, levels } = compareRuns(syntheticRun(5, { label: 'a' }), syntheticRun(6, { label: 'b', qpsScale: 0.97, latencyScale: 1.03 }), options(11));
    expect(overall.max_qps.verdict).toBe('no significant change');
    expect(levels.every((l) => l.qps.verdict === 'no significant change')).toBe(true);
    // Whatever a latency cell calls (single runs see only the noise within them), the headline says it too.
    const called = levels.flatMap((l) => (['p50_ms', 'p99_ms'] as const).filter((m) => l[m].verdict === 'regression').map((m) => `${m}@${l.level}`));
    expect(overall.verdict).toBe(called.length > 0 ? 'regression' : 'no significant change');
    expect(overall.regressions?.map((r) => `${r.metric}@${r.level}`)).toEqual(called);
  });

  it('gives no significant change for two runs from the same distribution at least 95% of the time', () => {
    const trials = 200;
    let quiet = 0;
    let quietLevels = 0;
    let levelsSeen = 0;
    for (let t = 0; t < trials; t++) {
      const { overall, levels } = compareRuns(syntheticRun(1000 + 2 * t, { label: 'a', seconds: 5 }), syntheticRun(1001 + 2 * t, { label: 'b', seconds: 5 }), options(t));
      if (overall.verdict === 'no significant change') quiet++;
      for (const l of levels) {
        levelsSeen++;
        if ([l.qps, l.p50_ms, l.p99_ms].every((d) => d.verdict === 'no significant change')) quietLevels++;
      }
    }
    expect(quiet / trials).toBeGreaterThanOrEqual(0.95);
    expect(quietLevels / levelsSeen).toBeGreaterThanOrEqual(0.95);
  }, 60_000);

  it('keeps levels only one run has as gaps, never zeros', () => {
    const { levels } = compareRuns(syntheticRun(8, { label: 'a', levels: [1, 2, 4] }), syntheticRun(9, { label: 'b', levels: [2, 4, 8] }), options(1));
    expect(levels.map((l) => l.level)).toEqual([1, 2, 4, 8]);
    const one = levels[0];
    expect(one?.in_head).toBe(false);
    expect(one?.qps.head).toBeNull();
    expect(one?.qps.verdict).toBe('insufficient data');
    expect(levels[3]?.qps.base).toBeNull();
  });

  it('is deterministic for the same seed', () => {
    const a = compareRuns(syntheticRun(1, { label: 'a' }), syntheticRun(2, { label: 'b' }), options(42));
    const b = compareRuns(syntheticRun(1, { label: 'a' }), syntheticRun(2, { label: 'b' }), options(42));
    expect(a).toEqual(b);
  });
});
