import { describe, expect, it } from 'vitest';
import { backoffDelay, secondsUntil } from './backoff.ts';

describe('backoffDelay', () => {
  it('doubles from 1 s and stops at 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map((n) => backoffDelay(n))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });
  it('treats a nonsense attempt as the first', () => {
    expect(backoffDelay(-1)).toBe(1000);
    expect(backoffDelay(Number.NaN)).toBe(1000);
  });
});

describe('secondsUntil', () => {
  it('rounds up and never goes negative', () => {
    expect(secondsUntil(5000, 3001)).toBe(2);
    expect(secondsUntil(5000, 5000)).toBe(0);
    expect(secondsUntil(5000, 9000)).toBe(0);
  });
});
