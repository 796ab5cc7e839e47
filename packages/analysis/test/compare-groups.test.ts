import { describe, expect, it } from 'vitest';
import { compareGroups, compareRuns, runToRunNoise, type RunGroup, type RunSamples } from '../src/compare/index.ts';
import { repeatedRuns, syntheticRun } from './fixtures/compare-runs.ts';

const options = (seed: number) => ({ minEffect: 0.05, seed, parameter: 'concurrency', resamples: 300 });
const group = (label: string, runs: RunSamples[]): RunGroup => ({ label, runs });
const quietEverywhere = (levels: ReturnType<typeof compareGroups>['levels']) =>
  levels.every((l) => [l.qps, l.p50_ms, l.p99_ms].every((d) => d.verdict === 'no significant change'));
/** Runs of one release that differ by a random ±8% factor, as on a shared, noisy box. */
const SPREAD = 0.08;
const TRIALS = 200;

describe('run-to-run noise', () => {
  it('A/A: three repeats against three repeats of the same release call no change at any level in ≥ 95% of trials', () => {
    let quiet = 0;
    for (let t = 0; t < TRIALS; t++) {
      const base = group('v1', repeatedRuns(5000 + 2 * t, 3, { label: 'v1', spread: SPREAD }));
      const head = group('v1', repeatedRuns(5001 + 2 * t, 3, { label: 'v1', spread: SPREAD }));
      const result = compareGroups(base, head, options(t));
      expect(result.noise.basis).toBe('repeats');
      if (quietEverywhere(result.levels) && result.overall.verdict === 'no significant change') quiet++;
    }
    console.info(`A/A, 3 vs 3 runs, ±8% between runs: no change called at any level in ${quiet} of ${TRIALS} trials`);
    expect(quiet / TRIALS).toBeGreaterThanOrEqual(0.95);
  }, 120_000);

  it('the same A/A with one run per side and only within-run intervals calls false changes — the failure the groups fix', () => {
    let quiet = 0;
    for (let t = 0; t < TRIALS; t++) {
      const [a] = repeatedRuns(7000 + 2 * t, 1, { label: 'v1', spread: SPREAD });
      const [b] = repeatedRuns(7001 + 2 * t, 1, { label: 'v1', spread: SPREAD });
      const result = compareRuns(a!, b!, options(t));
      expect(result.noise.basis).toBe('within-run only');
      if (quietEverywhere(result.levels)) quiet++;
    }
    expect(quiet / TRIALS).toBeLessThan(0.9);
  }, 120_000);

  it('one run per side borrows the run-to-run spread measured in earlier repeats, and then also calls no change in ≥ 95% of trials', () => {
    const history = [0, 1, 2, 3, 4, 5].map((g) => repeatedRuns(9000 + g, 3, { label: `old-${g}`, spread: SPREAD }));
    const values = (metric: 'qps' | 'p50_ms' | 'p99_ms') =>
      history.flatMap((runs) => [1, 2, 4, 8, 16].map((level) => runs.map((r) => r.curve.find((p) => p.level === level)![metric] as number)));
    const noise = runToRunNoise({ runs: 18, releases: 6, qps: values('qps'), p50_ms: values('p50_ms'), p99_ms: values('p99_ms') });
    expect(noise!.df).toBe(12);
    // ±8% uniform is a 4.6% standard deviation.
    expect(noise!.qps).toBeGreaterThan(0.025);
    expect(noise!.qps).toBeLessThan(0.07);
    let quiet = 0;
    for (let t = 0; t < TRIALS; t++) {
      const [a] = repeatedRuns(11000 + 2 * t, 1, { label: 'v1', spread: SPREAD });
      const [b] = repeatedRuns(11001 + 2 * t, 1, { label: 'v1', spread: SPREAD });
      const result = compareRuns(a!, b!, { ...options(t), runToRun: noise });
      expect(result.noise.basis).toBe('history');
      if (quietEverywhere(result.levels)) quiet++;
    }
    expect(quiet / TRIALS).toBeGreaterThanOrEqual(0.95);
  }, 120_000);

  it('still calls a real 25% loss a regression through the same noise, from five repeats a side', () => {
    // With ±8% between runs and a family-wise promise over 15 verdicts, five repeats a side are
    // what it takes to call a 25% change level by level; three see it in the overall verdict.
    const base = group('v1', repeatedRuns(42, 5, { label: 'v1', spread: SPREAD }));
    const head = group('v2', repeatedRuns(43, 5, { label: 'v2', spread: SPREAD, qpsScale: 0.75, latencyScale: 1.33 }));
    const { levels, overall } = compareGroups(base, head, options(1));
    expect(overall.verdict).toBe('regression');
    expect(levels.filter((l) => l.qps.verdict === 'regression').length).toBeGreaterThanOrEqual(4);
    expect(overall.summary).not.toMatch(/Single runs/);
  });

  it('a single pair of runs says it cannot separate a change from run-to-run noise', () => {
    const result = compareRuns(syntheticRun(1, { label: 'a' }), syntheticRun(2, { label: 'b' }), options(3));
    expect(result.noise.note).toMatch(/cannot separate a change from a busier machine/);
    expect(result.noise.note).toMatch(/--repeat 3/);
    expect(result.overall.summary).toMatch(/Single runs: run-to-run noise not measured\.$/);
  });
});

describe('flags in the comparison', () => {
  const flagged = new Map([[16, 'the agent flagged concurrency 16 generator-limited: event-loop delay p99 41 ms']]);
  const base = syntheticRun(21, { label: 'v1', runId: '11111111-1111-4111-8111-111111111111' });

  it('a level where the head agent was the limit gets no verdict, only "not comparable" with the reason', () => {
    const head = syntheticRun(22, { label: 'v2', qpsScale: 1.4, runId: '22222222-2222-4222-8222-222222222222', flags: flagged });
    const { levels } = compareRuns(base, head, options(5));
    const at16 = levels.find((l) => l.level === 16)!;
    expect(at16.flags).toEqual([{ side: 'head', run_id: '22222222-2222-4222-8222-222222222222', reason: flagged.get(16) }]);
    expect([at16.qps.verdict, at16.p50_ms.verdict, at16.p99_ms.verdict]).toEqual(['not comparable', 'not comparable', 'not comparable']);
    // The numbers are still shown; only the call is withheld.
    expect(at16.qps.change).toBeGreaterThan(0.3);
    expect(levels.find((l) => l.level === 8)!.qps.verdict).toBe('improvement');
    expect(levels.find((l) => l.level === 8)!.flags).toEqual([]);
  });

  it('a flagged peak makes max throughput not comparable; a flag on the base side counts too', () => {
    const levels = [1, 2, 4];
    const flat = syntheticRun(31, { label: 'v1', levels, runId: '33333333-3333-4333-8333-333333333333', flags: new Map([[4, 'limited']]) });
    const head = syntheticRun(32, { label: 'v2', levels, qpsScale: 0.7 });
    const { overall } = compareRuns(flat, head, options(6));
    expect(overall.max_qps.verdict).toBe('not comparable');
    expect(overall.p99_at_base_knee.verdict).toBe('not comparable');
    // The unflagged levels 1 and 2 do show the 30% loss: the headline names them, beside the flagged peak.
    expect(overall.verdict).toBe('regression');
    expect(overall.summary).toMatch(/not comparable: the agent was the limit/);
    expect(overall.summary).toMatch(/Regression: QPS regressed at concurrency 1 \(−\d+% \[.*\]\) and 2 \(−\d+% \[.*\]\)/);
  });
});

describe('the knee in a comparison', () => {
  it('says when two knees differ by less than the grid can tell', () => {
    const a = { ...syntheticRun(1, { label: 'a' }), knee: 16, knee_bracket: { low: 8, high: 16 } };
    const b = { ...syntheticRun(2, { label: 'b' }), knee: 12, knee_bracket: { low: 8, high: 12 } };
    const { overall } = compareRuns(a, b, options(2));
    expect(overall.knee.within_grid).toBe(true);
    expect(overall.summary).toMatch(/knee moved from 16 to 12 \(within the grid: the levels swept cannot tell them apart\)/);
  });
});
