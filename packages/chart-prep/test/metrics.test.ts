import { SvgViewQuery } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { latencyKeyOf, latencyKeysIn, metricOf } from '../src/metrics.ts';

describe('metrics= words', () => {
  it('maps each word to its curve field and back', () => {
    expect(latencyKeyOf('p999')).toBe('p999_ms');
    expect(metricOf('p90_ms')).toBe('p90');
  });

  it('reads a list leniently: known words once each, in drawing order, unknown ones left out', () => {
    expect(latencyKeysIn('p999, p50,p99,p50')).toEqual(['p50_ms', 'p99_ms', 'p999_ms']);
    expect(latencyKeysIn('p42,p90,')).toEqual(['p90_ms']);
    expect(latencyKeysIn('none')).toEqual([]);
  });

  it('splits the list as the API does, which refuses what the page leaves out', () => {
    expect(SvgViewQuery.parse({ metrics: ' p99 ,p50' }).metrics).toEqual(['p99', 'p50']);
    expect(latencyKeysIn(' p99 ,p50')).toEqual(['p50_ms', 'p99_ms']);
    expect(SvgViewQuery.safeParse({ metrics: 'p42,p90' }).success).toBe(false);
  });
});
