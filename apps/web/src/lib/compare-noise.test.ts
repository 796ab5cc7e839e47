import { describe, expect, it } from 'vitest';
import type { CompareResponse } from '@kneeboard/contracts';
import { recomputeQuery, reportNoiseAsof, withNoiseBasis } from './compare-noise.ts';
import { compareViewPath, parseCompareView, type CompareViewState } from './view-state.ts';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const report = (asof: number | null) => ({ heads: [{ noise: { history: asof === null ? null : { runs: [], asof } } }] }) as unknown as CompareResponse;

describe('the noise basis in the compare URL', () => {
  const parsed = parseCompareView({ base: A, head: B });
  const state = (parsed as { ok: true; state: CompareViewState }).state;

  it('pins the report’s cut-off into the page’s URL, and keeps a pin the URL already has', () => {
    expect(reportNoiseAsof(report(1795000000000))).toBe(1795000000000);
    const pinned = withNoiseBasis(state, { ok: true, report: report(1795000000000) });
    expect(compareViewPath(pinned)).toBe(`/compare?base=${A}&head=${B}&noise_asof=1795000000000`);
    const again = parseCompareView({ base: A, head: B, noise_asof: '1795000000000' });
    expect(again.ok && again.state.noiseAsof).toBe(1795000000000);
    expect(withNoiseBasis({ ...state, noiseAsof: 1 }, { ok: true, report: report(1795000000000) }).noiseAsof).toBe(1);
  });

  it('leaves groups of repeats (no history consulted) and failed comparisons unpinned; an unreadable pin is ignored', () => {
    expect(withNoiseBasis(state, { ok: true, report: report(null) }).noiseAsof ?? null).toBeNull();
    expect(withNoiseBasis(state, { ok: false }).noiseAsof ?? null).toBeNull();
    const bad = parseCompareView({ base: A, head: B, noise_asof: 'yesterday' });
    expect(bad.ok && (bad.state.noiseAsof ?? null)).toBeNull();
  });

  it('offers a newer basis as a link to the same view with the new cut-off', () => {
    expect(recomputeQuery(`?base=${A}&head=${B}&y=log&noise_asof=1`, 1795000000999)).toBe(`?base=${A}&head=${B}&y=log&noise_asof=1795000000999`);
  });
});
