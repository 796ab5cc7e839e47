import { describe, expect, it } from 'vitest';
import { fitUsl } from '../src/usl-fit.ts';
import { amdahlCeiling, uslThroughput } from '../src/usl.ts';
import { cisco, raytracer, specsdm91 } from './fixtures/published.ts';

const samples = (levels: readonly number[], qps: readonly number[]) =>
  levels.map((level, i) => ({ level, qps: qps[i] ?? 0 }));

/** |actual − expected| ≤ tol × |expected|. */
function expectWithin(actual: number | null | undefined, expected: number, tol: number) {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual ?? NaN) - expected)).toBeLessThanOrEqual(tol * Math.abs(expected));
}

describe('SPEC SDM91 (Gunther 2007; R usl)', () => {
  const fit = fitUsl(samples(specsdm91.load, specsdm91.throughput));
  const pub = specsdm91.published;

  it('recovers σ, κ and λ within 2% (in fact within 0.1%)', () => {
    expect(fit?.model).toBe('usl');
    for (const tol of [0.02, 0.001]) {
      expectWithin(fit?.sigma, pub.sigma, tol);
      expectWithin(fit?.kappa, pub.kappa, tol);
      expectWithin(fit?.lambda, pub.lambda, tol);
    }
  });

  it('reproduces the published standard errors, residual standard error and R²', () => {
    expectWithin(fit?.sigma_se, pub.sigma_se, 0.01);
    expectWithin(fit?.kappa_se, pub.kappa_se, 0.01);
    expectWithin(fit?.lambda_se, pub.lambda_se, 0.01);
    expectWithin(fit?.residual_se, pub.residual_se, 0.001);
    expectWithin(fit?.r2, pub.r2, 0.0005);
  });

  it('puts the peak at N* ≈ 96.5 (R: 97 to two digits) and the Amdahl limit at λ/σ ≈ 3245.6', () => {
    expect(fit?.peak_level).toBeGreaterThan(96);
    expect(fit?.peak_level).toBeLessThan(97);
    expect(Math.round(fit?.peak_level ?? 0)).toBe(pub.peak);
    expectWithin(fit ? amdahlCeiling(fit) : null, pub.limit, 0.001);
    expect(fit?.peak_qps).toBeCloseTo(uslThroughput(fit?.peak_level ?? 0, fit ?? { lambda: 0, sigma: 0, kappa: 0 }), 9);
  });

  it('gives the same fitted values as R (printed to 3–4 digits)', () => {
    specsdm91.load.forEach((n, i) => {
      expect(Math.round(uslThroughput(n, fit ?? { lambda: 0, sigma: 0, kappa: 0 }))).toBe(pub.fitted[i]);
    });
  });

  it('finds the same optimum when the points arrive unordered', () => {
    const shuffled = samples(specsdm91.load, specsdm91.throughput).reverse();
    const again = fitUsl(shuffled);
    expectWithin(again?.kappa, fit?.kappa ?? NaN, 1e-6);
    expectWithin(again?.sigma, fit?.sigma ?? NaN, 1e-6);
  });
});

describe('Ray tracer (Gunther 2007; R usl)', () => {
  const fit = fitUsl(samples(raytracer.processors, raytracer.throughput));
  const pub = raytracer.published;

  it('recovers σ and λ within 2% and κ = 0: the Amdahl case, with no peak', () => {
    expectWithin(fit?.sigma, pub.sigma, 0.02);
    expectWithin(fit?.lambda, pub.lambda, 0.02);
    expect(fit?.kappa).toBe(0);
    expect(fit?.model).toBe('amdahl');
    expect(fit?.peak_level).toBeNull();
  });

  it('reports the asymptote λ/σ as the ceiling it approaches', () => {
    expectWithin(fit?.peak_qps, pub.lambda / pub.sigma, 0.02);
    expect(fit?.peak_qps).toBeGreaterThan(Math.max(...raytracer.throughput));
  });

  it('has 95% intervals (±1.96 SE) within 5% of the width of R’s bootstrap ones', () => {
    const width = (ci: readonly number[]) => (ci[1] ?? 0) - (ci[0] ?? 0);
    expectWithin(2 * 1.96 * (fit?.sigma_se ?? 0), width(pub.ci95.sigma), 0.05);
    expectWithin(2 * 1.96 * (fit?.lambda_se ?? 0), width(pub.ci95.lambda), 0.05);
    expectWithin(2 * 1.96 * (fit?.kappa_se ?? 0), width(pub.ci95.kappa), 0.05);
  });
});

describe('Cisco router (Schwartz 2015; usl4j)', () => {
  const fit = fitUsl(samples(cisco.concurrency, cisco.throughput));
  const pub = cisco.published;

  it('recovers σ, κ, λ within 2% (in fact within usl4j’s own 0.02%)', () => {
    for (const tol of [0.02, 2e-4]) {
      expectWithin(fit?.sigma, pub.sigma, tol);
      expectWithin(fit?.kappa, pub.kappa, tol);
      expectWithin(fit?.lambda, pub.lambda, tol);
    }
  });

  it('puts the peak at the book’s N = 35 and X = 12341', () => {
    expect(Math.floor(fit?.peak_level ?? 0)).toBe(pub.peak);
    expectWithin(fit?.peak_qps, pub.peakQps, 2e-4);
  });
});
