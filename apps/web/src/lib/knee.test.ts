import { describe, expect, it } from 'vitest';
import { KNEE_TAG, kneeEvidence, kneeMarker, kneeTagBox } from './knee.ts';
import { analysis } from './test-analysis.ts';

const knee = { level: 8, method: 'kneedle', reason: 'Throughput stops growing at concurrency 8.' } as const;
const candidates = [
  { level: 17.827076557322144, method: 'usl_peak', reason: 'The USL fit peaks at concurrency 17.8 with 108 QPS.' },
  knee,
  { level: 8, method: 'latency', reason: 'p50 grows in proportion to the load above 8.' },
] as const;

describe('kneeMarker', () => {
  it('labels the knee with its level and carries its reason', () => {
    expect(kneeMarker(analysis({ knee }), [0.7, 45], 'log')).toEqual({
      level: 8,
      label: 'knee · 8',
      title: 'Throughput stops growing at concurrency 8.',
      method: 'kneedle',
    });
  });

  it('rounds a fitted knee level (N*) to three significant digits', () => {
    expect(kneeMarker(analysis({ knee: { ...knee, level: 17.827, method: 'usl_peak' } }), [0, 40], 'linear')?.label).toBe('knee · 17.8');
  });

  it('draws nothing without an analysis, without a knee, or where the axis cannot place it', () => {
    expect(kneeMarker(undefined, [0, 40], 'linear')).toBeNull();
    expect(kneeMarker(analysis(), [0, 40], 'linear')).toBeNull();
    expect(kneeMarker(analysis({ knee }), [10, 40], 'linear')).toBeNull();
    expect(kneeMarker(analysis({ knee: { ...knee, level: 0 } }), [0, 40], 'log')).toBeNull();
  });
});

describe('kneeEvidence', () => {
  it('lists every method with its level, the chosen knee first', () => {
    const rows = kneeEvidence(analysis({ knee, knee_candidates: [...candidates] }), 'concurrency');
    expect(rows.map((r) => [r.methodLabel, r.levelText, r.chosen])).toEqual([
      ['throughput bends (Kneedle)', 'concurrency 8', true],
      ['peak of the USL fit (N*)', 'concurrency 17.8', false],
      ['p50 grows with the load', 'concurrency 8', false],
    ]);
    expect(rows[1]?.reason).toContain('108 QPS');
  });

  it('is empty without candidates', () => {
    expect(kneeEvidence(analysis(), 'rate')).toEqual([]);
    expect(kneeEvidence(null, 'rate')).toEqual([]);
  });
});

describe('kneeTagBox', () => {
  const plot = { x: 80, y: 26, width: 400 };

  it('centres the tag on the line, above the plot area', () => {
    const box = kneeTagBox(280, 'knee · 8', plot);
    expect(box.x + box.width / 2).toBeCloseTo(280, 5);
    expect(box.y + box.height).toBeLessThanOrEqual(plot.y);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.height).toBe(KNEE_TAG.height);
  });

  it('slides the tag back over the plot when the knee is at either end', () => {
    expect(kneeTagBox(82, 'knee · 1', plot).x).toBe(80);
    const right = kneeTagBox(478, 'knee · 512', plot);
    expect(right.x + right.width).toBe(480);
  });
});
