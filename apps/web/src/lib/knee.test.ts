import { describe, expect, it } from 'vitest';
import { KNEE_TAG, kneeEvidence, kneeMarker, kneeTagBox } from './knee.ts';
import { analysisOf } from './test-analysis.ts';
import { point, seedCurve } from './test-runs.ts';

// Seed 001: the analysis calls the knee at 8 (Kneedle, confirmed by p50), and the fit peaks at N* ≈ 17.8.
const seed = analysisOf(seedCurve());
// Throughput exactly proportional to the load, latency flat: no knee, no candidates.
const linear = analysisOf([1, 2, 4, 8].map((level) => point(level, { p50_ms: 10, p90_ms: 12, p99_ms: 20, p999_ms: 30 })));

describe('kneeMarker', () => {
  it('labels the knee with its level and carries its reason', () => {
    expect(kneeMarker(seed, [0.7, 45], 'log')).toEqual({
      level: 8,
      label: 'knee · 8',
      title: 'Throughput stops growing at concurrency 8 (100 QPS, 97% of the peak) and p50 doubles by 16: requests queue above it.',
      method: 'kneedle',
    });
  });

  it('rounds a fitted knee level (N*) to three significant digits', () => {
    const peak = seed.knee_candidates.find((c) => c.method === 'usl_peak') ?? null;
    expect(kneeMarker({ ...seed, knee: peak }, [0, 40], 'linear')?.label).toBe('knee · 17.8');
  });

  it('draws nothing without a knee, or where the axis cannot place it', () => {
    expect(linear.knee).toBeNull();
    expect(kneeMarker(linear, [0, 40], 'linear')).toBeNull();
    expect(kneeMarker(seed, [10, 40], 'linear')).toBeNull();
    expect(kneeMarker({ ...seed, knee: { ...seed.knee!, level: 0 } }, [0, 40], 'log')).toBeNull();
  });
});

describe('kneeEvidence', () => {
  it('lists every method with its level, the chosen knee first', () => {
    const rows = kneeEvidence(seed, 'concurrency');
    expect(rows.map((r) => [r.methodLabel, r.levelText, r.chosen])).toEqual([
      ['throughput bends (Kneedle)', 'concurrency 8', true],
      ['p50 grows with the load', 'concurrency 8', false],
      ['peak of the USL fit (N*)', 'concurrency 17.8', false],
    ]);
    expect(rows[2]?.reason).toContain('108 QPS');
    // Had the analysis chosen a later candidate, that one would lead and the rest keep their order.
    const byPeak = kneeEvidence({ ...seed, knee: seed.knee_candidates[2]! }, 'concurrency');
    expect(byPeak.map((r) => [r.method, r.chosen])).toEqual([
      ['usl_peak', true],
      ['kneedle', false],
      ['latency', false],
    ]);
  });

  it('is empty without candidates', () => {
    expect(linear.knee_candidates).toEqual([]);
    expect(kneeEvidence(linear, 'rate')).toEqual([]);
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
