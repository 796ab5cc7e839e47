import { RunAnalysis } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { analyzeCurve, POOR_FIT_R2 } from '../src/analyze.ts';
import { scalingEfficiency } from '../src/efficiency.ts';
import { uslThroughput } from '../src/usl.ts';
import { curve } from './fixtures/curve.ts';
import { cisco, specsdm91 } from './fixtures/published.ts';
import { demoTarget } from './fixtures/synthetic.ts';

const closed = (rows: Parameters<typeof curve>[0], parameter = 'concurrency') =>
  ({ parameter, load_model: 'closed', curve: curve(rows) }) as const;

describe('analyzeCurve', () => {
  it('returns a RunAnalysis with the USL fit, a ~50-point drawn curve through N*, and efficiency', () => {
    const input = closed(specsdm91.load.map((level, i) => ({ level, qps: specsdm91.throughput[i] ?? 0 })), 'users');
    const r = RunAnalysis.parse(analyzeCurve(input));
    expect(r.usl?.model).toBe('usl');
    expect(r.usl_curve.length).toBeGreaterThanOrEqual(50);
    expect(r.usl_curve.length).toBeLessThanOrEqual(51);
    expect(r.usl_curve[0]?.level).toBe(1);
    expect(r.usl_curve[r.usl_curve.length - 1]?.level).toBe(216);
    const levels = r.usl_curve.map((p) => p.level);
    expect(levels).toEqual([...levels].sort((a, b) => a - b));
    expect(levels).toContain(r.usl?.peak_level);
    const top = Math.max(...r.usl_curve.map((p) => p.qps));
    expect(top).toBeCloseTo(r.usl?.peak_qps ?? 0, 9);
    expect(r.usl_curve[10]?.qps).toBeCloseTo(uslThroughput(r.usl_curve[10]?.level ?? 0, r.usl ?? { lambda: 0, sigma: 0, kappa: 0 }), 9);
    expect(r.efficiency).toHaveLength(7);
    expect(r.verdict).toMatch(/^Retrograde above users 72/);
  });

  it('excludes in-progress and zero-QPS levels from the fit and says so', () => {
    const rows = [
      { level: 1, qps: 10 },
      { level: 2, qps: 19 },
      { level: 4, qps: 35 },
      { level: 8, qps: 0, requests: 0 },
      { level: 16, qps: 5, in_progress: true },
    ];
    const r = analyzeCurve(closed(rows));
    expect(r.efficiency.map((e) => e.level)).toEqual([1, 2, 4]);
    expect(r.warnings).toContain('In-progress levels ignored until their window closes: concurrency 16.');
    expect(r.warnings).toContain('Levels with no successful requests left out of the fit: concurrency 8.');
    expect(r.usl).not.toBeNull();
  });

  it('warns about levels with errors, with their error rates', () => {
    const r = analyzeCurve(
      closed([
        { level: 1, qps: 10, requests: 600, errors: 0 },
        { level: 2, qps: 20, requests: 1000, errors: 30 },
        { level: 4, qps: 38, requests: 2400, errors: 1 },
      ]),
    );
    expect(r.warnings).toContain('Requests failed at concurrency 2 (3%), 4 (0.04%); QPS and latency count successful requests only.');
  });

  it('with fewer than three levels: no fit, a warning, and still a verdict', () => {
    const r = analyzeCurve(closed([{ level: 1, qps: 10 }, { level: 2, qps: 20 }]));
    expect(r.usl).toBeNull();
    expect(r.usl_curve).toEqual([]);
    expect(r.warnings).toContain('Only 2 completed levels: the USL needs at least 3 to fit.');
    expect(r.verdict).toBe('Scales linearly to concurrency 2 (efficiency 100% there).');
  });

  it('handles an empty curve and a single level without throwing', () => {
    const empty = RunAnalysis.parse(analyzeCurve({ parameter: 'concurrency', load_model: 'closed', curve: [] }));
    expect(empty.verdict).toBe('No completed levels yet: nothing to judge.');
    expect(empty.knee).toBeNull();
    const one = analyzeCurve(closed([{ level: 4, qps: 10 }]));
    expect(one.verdict).toBe('Only concurrency 4 is measured so far: a verdict needs two levels or more.');
    expect(one.warnings).toContain('Only 1 completed level: the USL needs at least 3 to fit.');
  });

  it('warns when the USL fits poorly and then keeps its coefficients out of the verdict', () => {
    const r = analyzeCurve(
      closed([
        { level: 1, qps: 100 },
        { level: 2, qps: 400 },
        { level: 4, qps: 150 },
        { level: 8, qps: 500 },
        { level: 16, qps: 200 },
        { level: 32, qps: 520 },
      ]),
    );
    expect(r.usl?.r2).toBeLessThan(0.9);
    expect(r.warnings.some((w) => w.startsWith('The USL fits poorly (R² = '))).toBe(true);
    expect(r.verdict).not.toMatch(/σ=|κ=/);
  });

  it('sends its trust in the fit as usl_trusted: R² ≥ POOR_FIT_R2 is trusted, below it is not, no fit is not', () => {
    const good = analyzeCurve(closed(specsdm91.load.map((level, i) => ({ level, qps: specsdm91.throughput[i] ?? 0 })), 'users'));
    expect(good.usl?.r2).toBeGreaterThanOrEqual(POOR_FIT_R2);
    expect(good.usl_trusted).toBe(true);
    const noisy = analyzeCurve(closed([1, 2, 4, 8, 16, 32].map((level, i) => ({ level, qps: [100, 400, 150, 500, 200, 520][i] ?? 0 }))));
    expect(noisy.usl?.r2).toBeLessThan(POOR_FIT_R2);
    expect(noisy.usl_trusted).toBe(false);
    expect(analyzeCurve(closed([{ level: 1, qps: 10 }, { level: 2, qps: 20 }])).usl_trusted).toBe(false);
  });

  it('sends the fitted throughput at every level of the curve, in-progress ones included, once each', () => {
    const rows = [
      { level: 4, qps: 35 },
      { level: 1, qps: 10 },
      { level: 2, qps: 19 },
      { level: 8, qps: 50 },
      { level: 8, qps: 52 },
      { level: 16, qps: 5, in_progress: true },
    ];
    const r = analyzeCurve(closed(rows));
    const fit = r.usl ?? { lambda: 0, sigma: 0, kappa: 0 };
    expect(r.usl_fitted.map((p) => p.level)).toEqual([1, 2, 4, 8, 16]);
    for (const p of r.usl_fitted) expect(p.qps).toBeCloseTo(uslThroughput(p.level, fit), 9);
    expect(analyzeCurve(closed([{ level: 1, qps: 10 }])).usl_fitted).toEqual([]);
    expect(analyzeCurve({ parameter: 'rate', load_model: 'open', curve: curve(rows) }).usl_fitted).toEqual([]);
  });

  it('chooses the USL peak as the knee only when nothing measured bends (Cisco: peak at 35.6 is past the last level)', () => {
    const r = analyzeCurve(closed(cisco.concurrency.map((level, i) => ({ level, qps: cisco.throughput[i] ?? 0 }))));
    const usl = r.knee_candidates.find((c) => c.method === 'usl_peak');
    expect(usl?.reason).toBe('The USL fit peaks at concurrency 35.6 with 12,343 QPS, beyond the largest level measured.');
    expect(r.knee?.method).not.toBe('usl_peak');
  });

  it('scales linearly when there is no knee and efficiency stays high', () => {
    const r = analyzeCurve({ parameter: 'concurrency', load_model: 'closed', curve: demoTarget(1000, 10, [1, 2, 4, 8, 16, 32]) });
    expect(r.knee).toBeNull();
    expect(r.usl?.model).toBe('linear');
    expect(r.verdict).toBe('Scales linearly to concurrency 32 (efficiency 100% there).');
  });

  it('is deterministic: the same curve gives the same analysis', () => {
    const input = { parameter: 'concurrency', load_model: 'closed', curve: demoTarget(8, 20, [1, 2, 4, 8, 16, 32], 0.02, 3) } as const;
    expect(analyzeCurve(input)).toEqual(analyzeCurve(input));
  });
});

describe('scaling efficiency', () => {
  it('is X(N) ÷ (N·X(1)) from level 1', () => {
    const e = scalingEfficiency(
      [
        { level: 1, qps: 20 },
        { level: 8, qps: 100 },
      ],
      'concurrency',
    );
    expect(e.efficiency).toEqual([
      { level: 1, efficiency: 1 },
      { level: 8, efficiency: 0.625 },
    ]);
    expect(e.basis).toMatch(/X\(1\)/);
  });

  it('uses X(Nmin)/Nmin as the per-unit baseline when the sweep starts above 1, and says so', () => {
    const e = scalingEfficiency(
      [
        { level: 4, qps: 40 },
        { level: 8, qps: 60 },
      ],
      'threads',
    );
    expect(e.efficiency[1]?.efficiency).toBeCloseTo(0.75, 12);
    expect(e.basis).toContain('relative to threads 4, the smallest level measured');
  });
});
