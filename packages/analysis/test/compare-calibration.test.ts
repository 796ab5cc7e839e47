import { describe, expect, it } from 'vitest';
import { calibrationRow, prng, simulatedRun } from '../testing/index.ts';
import { compareGroups, logRatioInterval, type RunGroup } from '../src/compare/index.ts';

const options = (seed: number) => ({ minEffect: 0.05, seed, parameter: 'concurrency', resamples: 1000 });

describe('intervals on the log of the ratio', () => {
  it('never reach −100%, however wide', () => {
    for (const se of [0.01, 0.3, 1]) {
      const { low, high } = logRatioInterval(Math.log(1.48), { between: se * se, betweenDf: 2, known: 0 }, 0.999);
      expect(low).toBeGreaterThan(-1);
      expect(high).toBeGreaterThan(low);
      // Symmetric on the log scale: (1 + low)(1 + high) = ratio².
      if (se <= 0.3) expect((1 + low) * (1 + high)).toBeCloseTo(1.48 ** 2, 6);
    }
  });

  it('groups of 2 within 2% of each other and +48% between releases: an improvement at every level, level 1 included, with tight intervals', () => {
    const u = prng(48);
    const group = (label: string, scale: number, factors: number[], first: number): RunGroup => ({ label, runs: factors.map((f, i) => simulatedRun(u, first + i, () => scale * f, 10)) });
    const { levels, overall, noise } = compareGroups(group('v1', 1, [0.99, 1.01], 0), group('v2', 1.48, [1.01, 0.99], 2), options(1));
    expect(noise.basis).toBe('repeats');
    expect(noise.method).toMatch(/from 2 base and 2 head runs/);
    expect(overall.verdict).toBe('improvement');
    expect(overall.max_qps.ci_low!).toBeGreaterThan(0.2);
    expect(overall.max_qps.ci_high!).toBeLessThan(0.8);
    for (const l of levels) {
      expect(l.qps.verdict).toBe('improvement');
      expect(l.qps.ci_low!).toBeGreaterThan(0.2);
      expect(l.qps.ci_high!).toBeLessThan(0.8);
      for (const d of [l.p50_ms, l.p99_ms]) {
        expect(d.verdict).toBe('improvement');
        expect(d.ci_low!).toBeGreaterThan(-0.6);
        expect(d.ci_high!).toBeLessThan(0);
      }
    }
  });
});

describe('the spread when an agent limited every level', () => {
  it('is still estimated from the repeats (on every level), never silently dropped to within-run noise', () => {
    const u = prng(9);
    const runs = (scale: number, first: number) => [0.98, 1.02].map((f, i) => simulatedRun(u, first + i, () => scale * f, 10));
    const base = runs(1, 0);
    base[0] = { ...base[0]!, flags: new Map([1, 2, 4, 8, 16].map((l) => [l, 'limited'])) };
    const { noise, levels } = compareGroups({ label: 'a', runs: base }, { label: 'b', runs: runs(1.3, 2) }, options(2));
    expect(levels.every((l) => l.qps.verdict === 'not comparable')).toBe(true);
    expect(noise.basis).toBe('repeats');
    expect(noise.spread!.qps!.sd).toBeGreaterThan(0.01);
    expect(noise.method).toMatch(/pooled across 5 levels/);
  });
});

// The README's table comes from bench/compare-calibration.bench.ts with 200 trials a cell; the
// same trials, fewer of them, hold the targets here (a fixed seed: the same outcome every time).
describe('calibration at 2, 3 and 5 runs a side (2% run-to-run noise)', () => {
  it.each([
    [2, 'step', 60],
    [3, 'step', 60],
    [5, 'step', 30],
    [2, 'run', 50],
    [3, 'run', 50],
  ] as const)('n=%i, noise per %s, %i trials: A/A calls a change in at most 5 percent (and n=3 per step detects 10 percent in 90)', (n, model, trials) => {
    const row = calibrationRow(n, model, trials, 7);
    console.info(`n=${n} ${model}: A/A false calls ${(row.falseCalls * 100).toFixed(1)}%, 10% detected ${(row.detected * 100).toFixed(1)}% (${trials} trials)`);
    expect(row.falseCalls).toBeLessThanOrEqual(0.05);
    if (n === 3 && model === 'step') expect(row.detected).toBeGreaterThanOrEqual(0.9);
  }, 240_000);
});
