import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeCurve } from '../src/analyze.ts';
import { closedLoopKnee } from '../src/closed-loop-knee.ts';
import type { UslFitResult } from '../src/usl-fit.ts';
import { latencyKnee } from '../src/latency-knee.ts';
import { throughputKnee } from '../src/throughput-knee.ts';
import { curve } from './fixtures/curve.ts';
import { demoTarget } from './fixtures/synthetic.ts';

const doubling = [1, 2, 4, 8, 16, 32, 64, 128];

describe('knee of a demo-target-like server (W workers, S ms each)', () => {
  it('puts the knee at W = 8 by both throughput and latency, and says why', () => {
    const r = analyzeCurve({ parameter: 'concurrency', load_model: 'closed', curve: demoTarget(8, 20, doubling) });
    expect(r.knee).toEqual({
      level: 8,
      method: 'kneedle',
      reason: 'Throughput stops growing at concurrency 8 (400 QPS, 100% of the peak) and p50 doubles by 16: requests queue above it.',
      // On a doubling grid the knee is somewhere above 4 and at most 8; the verdict says so.
      bracket: { low: 4, high: 8 },
    });
    expect(r.verdict).toMatch(/The knee is somewhere between concurrency 4 and 8: the levels swept cannot place it closer/);
    expect(r.knee_candidates.find((c) => c.method === 'latency')?.level).toBe(8);
    // A fixed pool is a hard limit, not contention: flat from W on, and the USL (which bends and
    // falls) is not trusted to describe it.
    expect(r.verdict).toMatch(/^Hard limit of about 400 QPS from concurrency 8 to 128: throughput is flat, not falling/);
    expect(r.usl_trusted).toBe(false);
    expect(r.littles_law.every((c) => Math.abs(c.ratio - 1) < 1e-9)).toBe(true);
  });

  it('finds W for any W on the sweep, any service time and up to 3% noise', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(2, 4, 8, 16, 32),
        fc.double({ min: 0.5, max: 500, noNaN: true }),
        fc.double({ min: 0, max: 0.03, noNaN: true }),
        fc.integer(),
        (workers, serviceMs, noise, seed) => {
          const r = analyzeCurve({
            parameter: 'concurrency',
            load_model: 'closed',
            curve: demoTarget(workers, serviceMs, doubling, noise, seed),
          });
          expect(r.knee?.level).toBe(workers);
          expect(r.knee_candidates.find((c) => c.method === 'latency')?.level).toBe(workers);
        },
      ),
      { seed: 8, numRuns: 150 },
    );
  });

  it('finds W on an evenly spaced sweep too (1…12, W = 5)', () => {
    const levels = Array.from({ length: 12 }, (_, i) => i + 1);
    const r = analyzeCurve({ parameter: 'concurrency', load_model: 'closed', curve: demoTarget(5, 10, levels) });
    expect(r.knee?.level).toBe(5);
  });
});

describe('throughput knee', () => {
  it('is not called on a curve that still scales (Amdahl σ = 0.01 to 16: 87% efficient)', () => {
    const pts = [1, 2, 4, 8, 16].map((n) => ({ level: n, qps: (100 * n) / (1 + 0.01 * (n - 1)) }));
    expect(throughputKnee(pts)).toBeNull();
  });

  it('ignores a retrograde tail when bending: the knee stays where growth stopped', () => {
    const pts = [
      { level: 1, qps: 100 },
      { level: 2, qps: 200 },
      { level: 4, qps: 400 },
      { level: 8, qps: 790 },
      { level: 16, qps: 800 },
      { level: 32, qps: 600 },
      { level: 64, qps: 300 },
    ];
    expect(throughputKnee(pts)?.level).toBe(8);
  });

  it('is not called on a flat (serialized) curve', () => {
    const pts = [1, 2, 4, 8, 16].map((n, i) => ({ level: n, qps: 50 + (i % 2) }));
    expect(throughputKnee(pts)).toBeNull();
  });
});

describe('latency knee', () => {
  it('is absent when latency stays flat', () => {
    const pts = doubling.map((n) => ({ level: n, qps: 10 * n, p50_ms: 100 }));
    expect(latencyKnee(pts)).toBeNull();
  });

  it('is the last level before p50 tracks N ÷ Xmax, and records where p50 doubled', () => {
    const pts = [
      { level: 1, qps: 20, p50_ms: 49 },
      { level: 8, qps: 100, p50_ms: 77 },
      { level: 16, qps: 100, p50_ms: 157 },
      { level: 32, qps: 103, p50_ms: 310 },
    ];
    expect(latencyKnee(pts)).toEqual({
      level: 8,
      p50: 77,
      doubledAt: { level: 16, p50: 157 },
      last: { level: 32, p50: 310 },
    });
  });

  it('does not mistake latency that rises without queueing (well below N ÷ Xmax) for a knee', () => {
    // p50 grows with N, but Little's law says the queue cannot explain it: N / Xmax is far larger.
    const pts = [1, 2, 4, 8].map((n) => ({ level: n, qps: 1000, p50_ms: 0.1 * n }));
    expect(latencyKnee(pts)).toBeNull();
  });
});

describe('cross-check of the throughput knee against the USL optimum', () => {
  const points = curve([
    { level: 1, qps: 20, p50: 49 },
    { level: 8, qps: 100, p50: 77 },
    { level: 16, qps: 100, p50: 157 },
    { level: 32, qps: 103, p50: 310 },
  ]);
  const fitPeakingAt = (peak: number): UslFitResult => ({
    lambda: 25,
    sigma: 0.1,
    kappa: 0.9 / (peak * peak),
    lambda_se: null,
    sigma_se: null,
    kappa_se: null,
    residual_se: null,
    r2: 0.99,
    peak_level: peak,
    peak_qps: 105,
    model: 'usl',
  });

  it('is quiet when the knee comes before the fitted peak', () => {
    const finding = closedLoopKnee(points, fitPeakingAt(18), true, 'concurrency');
    expect(finding.knee?.level).toBe(8);
    expect(finding.warnings).toEqual([]);
  });

  it('warns when the measured knee lies well past a trusted in-range peak', () => {
    const finding = closedLoopKnee(points, fitPeakingAt(4), true, 'concurrency');
    expect(finding.warnings).toEqual([
      'The throughput knee (concurrency 8) lies past the USL peak (4): the curve may be too noisy to place the knee precisely.',
    ]);
    expect(closedLoopKnee(points, fitPeakingAt(4), false, 'concurrency').warnings).toEqual([]);
  });

  it('falls back to the USL peak only when nothing measured bends and the fit is trusted', () => {
    const flat = curve([
      { level: 1, qps: 10 },
      { level: 2, qps: 19 },
      { level: 4, qps: 36 },
    ]);
    expect(closedLoopKnee(flat, fitPeakingAt(3), true, 'concurrency').knee?.method).toBe('usl_peak');
    expect(closedLoopKnee(flat, fitPeakingAt(3), false, 'concurrency').knee).toBeNull();
    expect(closedLoopKnee(flat, fitPeakingAt(40), true, 'concurrency').knee).toBeNull();
  });
});
