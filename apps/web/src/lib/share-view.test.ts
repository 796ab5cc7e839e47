import { describe, expect, it } from 'vitest';
import type { RunDetail } from '@kneeboard/contracts';
import { pinnedCompareState } from './share-view.ts';
import { compareViewPath, DEFAULT_SETTINGS, type CompareViewState } from './view-state.ts';

const detail = (id: string) => ({ run: { id } }) as unknown as RunDetail;
const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const C = '33333333-3333-4333-8333-333333333333';

describe('the view a share link pins', () => {
  it('replaces a release side with the run ids it shows, group by group, keeping the settings', () => {
    const state: CompareViewState = { ...DEFAULT_SETTINGS, y: 'log', base: 'release:svc@v1', heads: [C], minEffect: 0.05 };
    const pinned = pinnedCompareState(state, [detail(A), detail(B), detail(C)], [2, 1]);
    expect(pinned).toMatchObject({ base: `${A},${B}`, heads: [C], y: 'log', minEffect: 0.05 });
    expect(compareViewPath(pinned)).not.toContain('release');
  });

  it('leaves the state alone when the sizes do not add up to the runs shown', () => {
    const state: CompareViewState = { ...DEFAULT_SETTINGS, base: A, heads: [B], minEffect: 0.05 };
    expect(pinnedCompareState(state, [detail(A), detail(B)], [1])).toBe(state);
  });
});
