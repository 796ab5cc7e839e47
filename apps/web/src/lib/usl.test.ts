import { uslThroughput } from '@kneeboard/analysis';
import { describe, expect, it } from 'vitest';
import { fit } from './test-analysis.ts';
import { polylinePath, uslFitSummary, uslLine, uslShownByDefault, uslThroughputAt } from './usl.ts';

describe('uslShownByDefault', () => {
  it('shows the fitted line by default only for a good fit (R² ≥ 0.9)', () => {
    expect(uslShownByDefault(fit({ r2: 0.9 }))).toBe(true);
    expect(uslShownByDefault(fit({ r2: 0.89 }))).toBe(false);
    expect(uslShownByDefault(null)).toBe(false);
  });
});

describe('uslThroughputAt', () => {
  it('is λN / (1 + σ(N−1) + κN(N−1)) and peaks at N*', () => {
    const f = fit();
    expect(uslThroughputAt(f, 1)).toBeCloseTo(f.lambda, 10);
    expect(uslThroughputAt({ lambda: 10, sigma: 0.1, kappa: 0.01 }, 5)).toBeCloseTo(50 / (1 + 0.4 + 0.2), 10);
    const peak = uslThroughputAt(f, f.peak_level!);
    expect(peak).toBeCloseTo(f.peak_qps!, 6);
    expect(uslThroughputAt(f, f.peak_level! * 0.9)).toBeLessThan(peak);
    expect(uslThroughputAt(f, f.peak_level! * 1.1)).toBeLessThan(peak);
  });

  it('agrees with the analysis package that drew usl_curve (the page does not bundle the fitter)', () => {
    const f = fit();
    for (const n of [1, 2.5, 8, 17.8, 64, 512]) expect(uslThroughputAt(f, n)).toBeCloseTo(uslThroughput(n, f), 9);
  });
});

describe('uslLine', () => {
  const curve = [
    { level: 4, qps: 70 },
    { level: 1, qps: 24 },
    { level: 1.414, qps: 33 },
    { level: 0, qps: 0 },
    { level: 2.5, qps: Number.NaN },
  ];

  it('keeps fitted points at their own (unswept) levels, sorted', () => {
    expect(uslLine(curve, 'linear', [0, 10]).map((p) => p.level)).toEqual([0, 1, 1.414, 4]);
  });

  it('drops what a log axis cannot place and what lies outside the domain', () => {
    expect(uslLine(curve, 'log', [0.5, 10]).map((p) => p.level)).toEqual([1, 1.414, 4]);
    expect(uslLine(curve, 'linear', [1, 3]).map((p) => p.level)).toEqual([1, 1.414]);
  });
});

describe('polylinePath', () => {
  it('draws through placed points and breaks where a point could not be placed', () => {
    expect(polylinePath([{ x: 0, y: 10 }, { x: 5.123, y: 8 }])).toBe('M0,10L5.12,8');
    expect(polylinePath([{ x: 0, y: 1 }, { x: undefined, y: 2 }, { x: 3, y: 4 }, { x: 5, y: Number.NaN }, { x: 6, y: 7 }])).toBe('M0,1M3,4M6,7');
    expect(polylinePath([])).toBe('');
  });
});

describe('uslFitSummary', () => {
  it('gives λ, σ and κ with ± one standard error, R², N* and the peak', () => {
    const s = uslFitSummary(fit(), 'concurrency');
    expect(s.quality).toBe('good');
    expect(s.note).toBeNull();
    expect(s.rows.map((r) => [r.symbol, r.value, r.unit])).toEqual([
      ['λ', '24.2 ± 3.3', 'req/s'],
      ['σ', '0.129 ± 0.049', ''],
      ['κ', '0.00274 ± 0.00107', ''],
      ['R²', '0.978', ''],
      ['N*', '17.8', 'concurrency'],
      ['X(N*)', '108', 'req/s'],
    ]);
  });

  it('leaves out ± when the fit has no spare degrees of freedom', () => {
    const s = uslFitSummary(fit({ lambda_se: null, sigma_se: null, kappa_se: null }), 'concurrency');
    expect(s.rows[0]?.value).toBe('24.2');
  });

  it('gives an Amdahl fit its asymptote λ/σ and no peak', () => {
    // As the analysis reports it: κ fixed at 0, yet a rounding-noise standard error.
    const s = uslFitSummary(fit({ model: 'amdahl', kappa: 0, kappa_se: 2.09e-16, sigma: 0.05, lambda: 100, peak_level: null, peak_qps: 2000, r2: 0.7 }), 'threads');
    expect(s.quality).toBe('poor');
    expect(s.rows.find((r) => r.key === 'kappa')).toMatchObject({ value: '0', unit: 'negligible' });
    expect(s.note?.text).toBe('asymptote λ/σ = 2,000 req/s, no peak');
    expect(s.rows.map((r) => r.key)).toEqual(['lambda', 'sigma', 'kappa', 'r2']);
  });

  it('says a linear fit has no peak', () => {
    const s = uslFitSummary(fit({ model: 'linear', sigma: 0, kappa: 0, peak_level: null, peak_qps: null }), 'workers');
    expect(s.rows.filter((r) => r.unit === 'negligible').map((r) => r.key)).toEqual(['sigma', 'kappa']);
    expect(s.note?.text).toBe('no peak: linear over the measured range');
    expect(s.rows.some((r) => r.key === 'peak_level')).toBe(false);
  });
});
