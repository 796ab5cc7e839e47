import { RunDetail } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { LIVE_LEVELS, liveRunAt, staticRuns } from './fixture-data.ts';

describe('fixture data', () => {
  it('matches the contracts', () => {
    for (const d of staticRuns(Date.now())) expect(() => RunDetail.parse(d)).not.toThrow();
    for (let t = 0; t <= LIVE_LEVELS.length; t++) expect(() => RunDetail.parse(liveRunAt(t, Date.now()))).not.toThrow();
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
