import { describe, expect, it } from 'vitest';
import { comparisonTitle } from './comparison-title.ts';
import { detail, point } from './test-runs.ts';

describe('comparisonTitle', () => {
  it('names the service, the heads and the base', () => {
    const runs = [1, 2, 3].map((n) => detail(n, [point(1)]));
    expect(comparisonTitle(runs, ['v1.6.1', 'v1.6.2', 'k6'])).toBe('svc: v1.6.2, k6 vs v1.6.1');
    const mixed = [detail(1, [point(1)]), detail(2, [point(1)], { run: { service: 'other' } })];
    expect(comparisonTitle(mixed, ['a', 'b'])).toBe('svc / other: b vs a');
  });
});
