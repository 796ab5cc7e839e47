import type { CurvePoint } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { analysisOf } from './test-analysis.ts';
import { point, seedCurve } from './test-runs.ts';
import { polylinePath, uslFitSummary } from './usl.ts';

/** The analysis' fit of a curve, with its own verdict on it; these tests need one. */
function fitOf(curve: CurvePoint[], parameter = 'concurrency') {
  const a = analysisOf(curve, { parameter });
  if (a.usl === null) throw new Error('the curve should have a USL fit');
  return { fit: a.usl, trusted: a.usl_trusted };
}

describe('polylinePath', () => {
  it('draws through placed points and breaks where a point could not be placed', () => {
    expect(polylinePath([{ x: 0, y: 10 }, { x: 5.123, y: 8 }])).toBe('M0,10L5.12,8');
    expect(polylinePath([{ x: 0, y: 1 }, { x: undefined, y: 2 }, { x: 3, y: 4 }, { x: 5, y: Number.NaN }, { x: 6, y: 7 }])).toBe('M0,1M3,4M6,7');
    expect(polylinePath([])).toBe('');
  });
});

describe('uslFitSummary', () => {
  it('gives λ, σ and κ with ± one standard error, R², N* and the peak', () => {
    const { fit, trusted } = fitOf(seedCurve());
    const s = uslFitSummary(fit, trusted, 'concurrency');
    // Seed 001 with 2 and 4 measured is linear to 4 and flat from 8: a hard limit the analysis
    // does not let the USL explain, whatever its R².
    expect(s.quality).toBe('poor');
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

  it('leaves out ± when the fit has no spare degrees of freedom (exactly three levels)', () => {
    const { fit, trusted } = fitOf(seedCurve().slice(0, 3));
    expect(fit.lambda_se).toBeNull();
    expect(uslFitSummary(fit, trusted, 'concurrency').rows[0]?.value).toBe('20.1');
  });

  it('calls the fit poor exactly when the analysis does not trust it, and says why on hover', () => {
    const noisy = [100, 400, 150, 500, 200, 520].map((qps, i) => point(2 ** i, { qps }));
    const { fit, trusted } = fitOf(noisy);
    expect(trusted).toBe(false);
    const s = uslFitSummary(fit, trusted, 'concurrency');
    expect(s.quality).toBe('poor');
    expect(s.rows.find((r) => r.key === 'r2')?.hint).toContain('read σ, κ and the peak with care');
    // The same numbers, judged trusted, are a good fit: the page follows the analysis, not R².
    expect(uslFitSummary(fit, true, 'concurrency').quality).toBe('good');
    expect(uslFitSummary(fit, true, 'concurrency').distrust).toBeNull();
  });

  it('says an untrusted fit is not drawn by default, with the analysis’ own reason on hover, even at a high R²', () => {
    const pool = [1, 2, 4, 8, 16, 32, 64].map((level) => point(level, { qps: Math.min(level, 8) * 50 }));
    const a = analysisOf(pool);
    expect(a.usl?.r2).toBeGreaterThan(0.9);
    expect(a.usl_trusted).toBe(false);
    const s = uslFitSummary(a.usl!, a.usl_trusted, 'concurrency', a.usl_untrusted_reason ?? null);
    expect(s.quality).toBe('poor');
    expect(s.distrust?.text).toBe('not trusted: not drawn over the measurements by default');
    expect(s.distrust?.hint).toBe(a.usl_untrusted_reason);
    expect(s.distrust?.hint).toMatch(/^The USL fit is off by \d+% of the peak at concurrency/);
    expect(s.rows.find((r) => r.key === 'peak_qps')?.hint).toContain('not a prediction');
  });

  it('gives an Amdahl fit its asymptote λ/σ and no peak', () => {
    const amdahl = [1, 2, 4, 8, 16, 32].map((level) => point(level, { qps: (100 * level) / (1 + 0.05 * (level - 1)) }));
    const { fit, trusted } = fitOf(amdahl, 'threads');
    expect(fit.model).toBe('amdahl');
    const s = uslFitSummary(fit, trusted, 'threads');
    expect(s.rows.find((r) => r.key === 'kappa')).toMatchObject({ value: '0', unit: 'negligible' });
    expect(s.note?.text).toBe('asymptote λ/σ = 2,000 req/s, no peak');
    expect(s.rows.map((r) => r.key)).toEqual(['lambda', 'sigma', 'kappa', 'r2']);
  });

  it('says a linear fit has no peak', () => {
    const { fit, trusted } = fitOf([1, 2, 4, 8].map((level) => point(level)), 'workers');
    expect(fit.model).toBe('linear');
    const s = uslFitSummary(fit, trusted, 'workers');
    expect(s.rows.filter((r) => r.unit === 'negligible').map((r) => r.key)).toEqual(['sigma', 'kappa']);
    expect(s.note?.text).toBe('no peak: linear over the measured range');
    expect(s.rows.some((r) => r.key === 'peak_level')).toBe(false);
  });
});
