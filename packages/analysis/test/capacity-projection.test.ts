import { describe, expect, it } from 'vitest';
import type { Capacity, UslFit } from '@kneeboard/contracts';
import { fitUsl, projectCapacity, uslThroughput, uslTrust, PROJECTION_ASSUMPTION } from '../src/index.ts';
import { prng } from '../testing/index.ts';

/** A USL service (λ 100, σ 0.05, κ 0.0005: peak near c = 44) swept 1…32 with 1% noise, fitted as the analysis fits it. */
const TRUE = { lambda: 100, sigma: 0.05, kappa: 0.0005 };
const LEVELS = [1, 2, 4, 8, 16, 24, 32];

function sweep(seed = 3) {
  const rand = prng(seed);
  const points = LEVELS.map((level) => ({ level, qps: uslThroughput(level, TRUE) * (1 + 0.02 * (rand() - 0.5)) }));
  const fit = fitUsl(points)!;
  const usl: UslFit = {
    lambda: fit.lambda,
    sigma: fit.sigma,
    kappa: fit.kappa,
    lambda_se: fit.lambda_se,
    sigma_se: fit.sigma_se,
    kappa_se: fit.kappa_se,
    r2: fit.r2,
    peak_level: fit.peak_level,
    peak_qps: fit.peak_qps,
    model: fit.model,
  };
  return { points, usl, trusted: uslTrust(points, fit, 'concurrency').trusted };
}

/** Capacity as capacityUnderSlos states it: holds at 8, breaks at 16, crossing at 12. */
function capacity(points: { level: number; qps: number }[], holds: number | null, breaks: number | null, crossing: number | null): Capacity {
  const qpsAt = (l: number) => points.find((p) => p.level === l)!.qps;
  return {
    slos: ['p99<=50ms'],
    confidence: 0.95,
    samples: 'exact',
    level: holds,
    qps: holds === null ? null : qpsAt(holds),
    bracket: {
      holds: holds === null ? null : { level: holds, qps: qpsAt(holds) },
      breaks: breaks === null ? null : { level: breaks, qps: qpsAt(breaks) },
      crossing: crossing === null ? null : { level: crossing, qps: uslThroughput(crossing, TRUE) },
    },
    unclear_levels: [],
    skipped_levels: [],
    levels: [],
    summary: holds === null ? 'P99 ≤ 50 ms already breaks at concurrency 1.' : 'Within p99 ≤ 50 ms …',
    warnings: [],
  };
}

describe('projectCapacity', () => {
  it('projects per-instance capacity at the crossing, with an interval that holds the true value, and counts instances from it', () => {
    const { points, usl, trusted } = sweep();
    expect(trusted).toBe(true);
    const p = projectCapacity({ usl, uslTrusted: true, uslUntrustedReason: null, capacity: capacity(points, 8, 16, 12), targetQps: 10_000, currentQps: 400 });
    expect(p.refused).toBeNull();
    const truth = uslThroughput(12, TRUE);
    expect(Math.abs(p.per_instance!.qps - truth) / truth).toBeLessThan(0.02);
    expect(p.per_instance!.low).toBeLessThanOrEqual(points[3]!.qps);
    expect(p.per_instance!.high!).toBeGreaterThanOrEqual(points[4]!.qps);
    expect(p.per_instance!.low).toBeLessThan(truth);
    expect(p.per_instance!.high!).toBeGreaterThan(truth);
    const inst = p.instances!;
    expect(inst.needed).toBe(Math.ceil(10_000 / p.per_instance!.qps));
    expect(inst.fewest).toBe(Math.ceil(10_000 / p.per_instance!.high!));
    expect(inst.most).toBe(Math.ceil(10_000 / p.per_instance!.low));
    expect(inst.fewest!).toBeLessThanOrEqual(inst.needed);
    expect(inst.needed).toBeLessThanOrEqual(inst.most);
    // Enough instances at the pessimistic end really serve the target on the true curve.
    expect(inst.most * uslThroughput(8, TRUE)).toBeGreaterThanOrEqual(10_000 * 0.99);
    expect(p.headroom!.qps).toBeCloseTo(p.per_instance!.qps - 400, 9);
    expect(p.headroom!.ratio).toBeCloseTo(p.per_instance!.qps / 400 - 1, 9);
    expect(p.headroom!.low_qps).toBeCloseTo(p.per_instance!.low - 400, 9);
    expect(p.assumption).toBe(PROJECTION_ASSUMPTION);
    expect(p.assumption).toMatch(/independent/);
    expect(p.summary).toMatch(/^One instance serves ≈ [\d,.]+ QPS within p99<=50ms \([\d,.]+…[\d,.]+\)\. From 400 QPS that is [\d.]+% headroom/);
    expect(p.summary).toMatch(/needs \d+ instances \(\d+–\d+\), if instances are independent and keep the same SLOs\.$/);
  });

  it('without a break says only "at most" so many instances: capacity is a lower bound', () => {
    const { points, usl } = sweep();
    const p = projectCapacity({ usl, uslTrusted: true, uslUntrustedReason: null, capacity: capacity(points, 32, null, null), targetQps: 5000 });
    expect(p.refused).toBeNull();
    expect(p.per_instance!.high).toBeNull();
    expect(p.instances!.fewest).toBeNull();
    expect(p.instances!.most).toBe(Math.ceil(5000 / p.per_instance!.low));
    expect(p.headroom).toBeNull();
    expect(p.summary).toMatch(/at least/);
    expect(p.summary).toMatch(/\(at most \d+\)/);
  });

  it('says when the current traffic is already past capacity', () => {
    const { points, usl } = sweep();
    const p = projectCapacity({ usl, uslTrusted: true, uslUntrustedReason: null, capacity: capacity(points, 8, 16, 12), currentQps: 5000 });
    expect(p.headroom!.qps).toBeLessThan(0);
    expect(p.summary).toMatch(/5,?000 QPS is already past capacity/);
  });

  it('refuses with the trust reason when the fit is not trusted', () => {
    const { points, usl } = sweep();
    const reason = 'Throughput rises in proportion to the load and is flat from concurrency 4 on: a hard limit.';
    const p = projectCapacity({ usl, uslTrusted: false, uslUntrustedReason: reason, capacity: capacity(points, 8, 16, 12), targetQps: 1000 });
    expect(p.refused).toBe(reason);
    expect(p.per_instance).toBeNull();
    expect(p.instances).toBeNull();
    expect(p.summary).toBe(`No projection: ${reason}`);
  });

  it('refuses without a fit (an open loop) and without capacity', () => {
    const { points, usl } = sweep();
    const noFit = projectCapacity({ usl: null, uslTrusted: false, uslUntrustedReason: null, capacity: capacity(points, 8, 16, 12), targetQps: 1000 });
    expect(noFit.refused).toMatch(/no USL fit/);
    const none = projectCapacity({ usl, uslTrusted: true, uslUntrustedReason: null, capacity: capacity(points, null, 1, null), targetQps: 1000 });
    expect(none.refused).toMatch(/^no capacity under p99<=50ms: P99 ≤ 50 ms already breaks/);
    expect(none.instances).toBeNull();
  });
});
