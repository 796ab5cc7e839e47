import { RunDetail } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { FIXTURE_IDS, LIVE_LEVELS, liveRunAt, staticRuns } from './fixture-data.ts';

describe('fixture data', () => {
  it('matches the contracts', () => {
    for (const d of staticRuns(Date.now())) expect(() => RunDetail.parse(d)).not.toThrow();
    for (let t = 0; t <= LIVE_LEVELS.length; t++) expect(() => RunDetail.parse(liveRunAt(t, Date.now()))).not.toThrow();
  });

  it('carries the analysis the API would send, including a generator-limited sweep', () => {
    const runs = staticRuns(Date.now());
    expect(runs.every((d) => d.analysis !== undefined)).toBe(true);
    const limited = runs.find((d) => d.run.id === FIXTURE_IDS.generatorLimited)!.analysis;
    expect(limited.littles_law.filter((c) => c.generator_limited).map((c) => c.level)).toEqual([32, 64, 128]);
    expect(limited.warnings.some((w) => w.includes('generator-limited'))).toBe(true);
    const noisy = runs.find((d) => d.run.id === FIXTURE_IDS.noisy)!.analysis;
    expect(noisy.usl!.r2).toBeLessThan(0.9);
    expect(noisy.warnings.some((w) => w.includes('fits poorly'))).toBe(true);
    expect(liveRunAt(1, 1).analysis.knee).toBeNull(); // one level: nothing to judge yet
    expect(liveRunAt(LIVE_LEVELS.length, 1).analysis.knee?.level).toBe(8);
  });

  it('grows the live run one level per tick with exactly one level in progress until it finishes', () => {
    const mid = liveRunAt(3, 1);
    expect(mid.curve.length).toBe(4);
    expect(mid.curve.filter((p) => p.in_progress).map((p) => p.level)).toEqual([LIVE_LEVELS[3]]);
    const done = liveRunAt(LIVE_LEVELS.length, 1);
    expect(done.run.status).toBe('finished');
    expect(done.curve.every((p) => !p.in_progress)).toBe(true);
  });
});
