import { describe, expect, it } from 'vitest';
import { EndpointHeadChange, type ChangeVerdict, type LevelComparison, type MetricDelta } from '@kneeboard/contracts';
import { endpointHeadChange } from '../src/compare/index.ts';

const same: MetricDelta = { base: 10, head: 10, change: 0, ci_low: -0.01, ci_high: 0.01, verdict: 'no significant change' };
const moved = (change: number, verdict: ChangeVerdict): MetricDelta => ({ base: 10, head: 10 * (1 + change), change, ci_low: change - 0.02, ci_high: change + 0.02, verdict });
const level = (l: number, parts: Partial<Pick<LevelComparison, 'qps' | 'p50_ms' | 'p99_ms'>>): LevelComparison => ({ level: l, in_base: true, in_head: true, flags: [], qps: same, p50_ms: same, p99_ms: same, ...parts });

describe('endpointHeadChange: one endpoint’s line in the per-endpoint summary', () => {
  it('names the largest p99 change in the verdict’s direction, ignoring changes the other way', () => {
    const levels = [level(16, { p99_ms: moved(-0.1, 'improvement') }), level(64, { p99_ms: moved(-0.18, 'improvement') }), level(128, { p50_ms: moved(0.3, 'regression') })];
    const line = EndpointHeadChange.parse(endpointHeadChange('checkout', 'improvement', levels));
    expect(line.change).toEqual({ metric: 'p99_ms', level: 64, change: -0.18, ci_low: -0.18 - 0.02, ci_high: -0.18 + 0.02 });
    expect(line.sentence).toBe('checkout: faster (−18% p99 at 64)');
  });

  it('falls back to p50, then QPS, when p99 has no call in that direction', () => {
    expect(endpointHeadChange('search', 'regression', [level(64, { p50_ms: moved(0.12, 'regression'), qps: moved(-0.3, 'regression') })]).sentence).toBe('search: slower (+12% p50 at 64)');
    expect(endpointHeadChange('search', 'regression', [level(8, { qps: moved(-0.3, 'regression') })]).sentence).toBe('search: slower (−30% QPS at 8)');
  });

  it('says the verdict alone when there is no significant change or no figure to show', () => {
    expect(endpointHeadChange('cart', 'no significant change', [level(64, { p99_ms: moved(0.2, 'regression') })])).toEqual({ verdict: 'no significant change', change: null, sentence: 'cart: no significant change' });
    // An improvement in peak throughput only (the overall verdict) has no table figure.
    expect(endpointHeadChange('cart', 'improvement', [level(64, {})]).sentence).toBe('cart: faster');
  });
});
