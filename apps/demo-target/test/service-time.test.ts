import { describe, expect, it } from 'vitest';
import { formatServerTiming } from '../src/server-timing.ts';
import { sampleServiceMs } from '../src/service-time.ts';

describe('sampleServiceMs', () => {
  it('returns S exactly without jitter', () => {
    expect(sampleServiceMs(20, 0, () => 0.9)).toBe(20);
  });

  it('spreads uniformly over [S − J, S + J]', () => {
    expect(sampleServiceMs(20, 5, () => 0)).toBe(15);
    expect(sampleServiceMs(20, 5, () => 0.5)).toBe(20);
    expect(sampleServiceMs(20, 5, () => 1)).toBe(25);
  });
});

describe('formatServerTiming', () => {
  it('writes queue and compute in ms with microsecond digits', () => {
    expect(formatServerTiming(0.01234, 20.5)).toBe('queue;dur=0.012, compute;dur=20.500');
  });
});
