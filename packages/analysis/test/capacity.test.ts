import { describe, expect, it } from 'vitest';
import type { CurvePoint, SloClause } from '@kneeboard/contracts';
import { capacityUnderSlos, type CapacitySamples } from '../src/index.ts';
import { prng } from '../testing/index.ts';

/**
 * A closed-loop W×S server, as the demo target: throughput min(N, W)·1000/S, median latency
 * max(S, N·S/W) with lognormal spread σ=0.25, so p99 = median·e^(0.25·2.326) ≈ 1.79·median.
 * Each level gets `n` raw latencies and its curve point is computed from them, so the curve and
 * the sample agree the way the API's do.
 */
const W = 4;
const S = 20;

function level(level: number, n: number, seed: number, errors = 0): { point: CurvePoint; samples: CapacitySamples } {
  const rand = prng(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const median = Math.max(S, (level * S) / W);
  const latencies = Array.from({ length: n }, () => median * Math.exp(0.25 * gaussian()));
  const sorted = [...latencies].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(n - 1, Math.ceil(p * n) - 1)] as number;
  const point: CurvePoint = {
    level,
    requests: n + errors,
    errors,
    qps: (Math.min(level, W) * 1000) / S,
    window_s: 10,
    p50_ms: q(0.5),
    p90_ms: q(0.9),
    p99_ms: q(0.99),
    p999_ms: q(0.999),
    compute_p50_ms: null,
    compute_p99_ms: null,
    queue_p50_ms: null,
    queue_p99_ms: null,
    other_p50_ms: null,
    in_progress: false,
    health: null,
  };
  return { point, samples: { level, latencies } };
}

function run(levels: number[], n = 4000, errorsAt: Record<number, number> = {}) {
  const parts = levels.map((l, i) => level(l, n, 100 + i, errorsAt[l] ?? 0));
  return { curve: parts.map((p) => p.point), samples: parts.map((p) => p.samples) };
}

const p99 = (ms: number): SloClause => ({ metric: 'p99', max_ms: ms });

describe('capacityUnderSlos', () => {
  it('finds the last level that holds and brackets the break, interpolating the crossing', () => {
    // p99 ≈ 35.8 ms up to c = 4, 71.6 at 8: p99 ≤ 50 ms holds to 4 and breaks at 8, crossing near 4 + 4·(50−35.8)/(71.6−35.8) ≈ 5.6.
    const { curve, samples } = run([1, 2, 4, 8, 16]);
    const capacity = capacityUnderSlos({ curve, samples, slos: [p99(50)], parameter: 'concurrency' });
    expect(capacity.levels.map((l) => l.judgement)).toEqual(['holds', 'holds', 'holds', 'breaks', 'breaks']);
    expect(capacity.level).toBe(4);
    expect(capacity.qps).toBe(200);
    expect(capacity.bracket.holds).toEqual({ level: 4, qps: 200 });
    expect(capacity.bracket.breaks).toEqual({ level: 8, qps: 200 });
    expect(capacity.bracket.crossing?.level).toBeGreaterThan(5.2);
    expect(capacity.bracket.crossing?.level).toBeLessThan(6.0);
    expect(capacity.slos).toEqual(['p99<=50ms']);
    expect(capacity.samples).toBe('exact');
    const check = capacity.levels[2]!.checks[0]!;
    expect(check.basis).toBe('bootstrap');
    expect(check.low!).toBeLessThanOrEqual(check.value!);
    expect(check.high!).toBeGreaterThanOrEqual(check.value!);
    expect(check.high!).toBeLessThan(50);
    expect(capacity.summary).toMatch(/^Within p99 ≤ 50 ms: 200 QPS at concurrency 4; breaks at 8 \(crossing ≈ 5\.\d+, ≈ 200 QPS\)\.$/);
    expect(capacity.unclear_levels).toEqual([]);
  });

  it('says capacity is at least the highest level when the SLO never breaks', () => {
    const { curve, samples } = run([1, 2, 4, 8, 16]);
    const capacity = capacityUnderSlos({ curve, samples, slos: [p99(1000)], parameter: 'concurrency' });
    expect(capacity.level).toBe(16);
    expect(capacity.bracket).toEqual({ holds: { level: 16, qps: 200 }, breaks: null, crossing: null });
    expect(capacity.summary).toMatch(/no level breaks, so capacity is at least this/);
  });

  it('has no capacity when the lowest level already breaks', () => {
    const { curve, samples } = run([1, 2, 4, 8]);
    const capacity = capacityUnderSlos({ curve, samples, slos: [p99(10)], parameter: 'concurrency' });
    expect(capacity.level).toBeNull();
    expect(capacity.qps).toBeNull();
    expect(capacity.bracket).toEqual({ holds: null, breaks: { level: 1, qps: 50 }, crossing: null });
    expect(capacity.summary).toMatch(/^P99 ≤ 10 ms already breaks at concurrency 1, the lowest level judged/);
  });

  it('names a level whose interval straddles the threshold as unclear, and never counts it', () => {
    // At 8 the sample p99 is ≈ 71.6 ms; a threshold at that value cannot be told apart from it.
    const { curve, samples } = run([1, 2, 4, 8, 16]);
    const at8 = curve[3]!.p99_ms!;
    const capacity = capacityUnderSlos({ curve, samples, slos: [p99(at8)], parameter: 'concurrency' });
    expect(capacity.levels.map((l) => l.judgement)).toEqual(['holds', 'holds', 'holds', 'unclear', 'breaks']);
    expect(capacity.unclear_levels).toEqual([8]);
    expect(capacity.level).toBe(4);
    expect(capacity.bracket.breaks?.level).toBe(16);
    expect(capacity.summary).toMatch(/Unclear at concurrency 8\./);
  });

  it('calls a level unclear when too few requests put anything above the percentile', () => {
    const { curve, samples } = run([1, 2], 200);
    const capacity = capacityUnderSlos({ curve, samples, slos: [p99(1000)], parameter: 'concurrency' });
    expect(capacity.levels.map((l) => l.judgement)).toEqual(['unclear', 'unclear']);
    expect(capacity.level).toBeNull();
    expect(capacity.warnings.join(' ')).toMatch(/Too few requests at concurrency 1, 2/);
  });

  it('skips a generator-limited level: it is never the evidence that the SLO holds', () => {
    const { curve, samples } = run([1, 2, 4, 8, 16]);
    // Make 8 look fine, but flag it: the agent, not the service, set its numbers.
    const fine = level(4, 4000, 7);
    curve[3] = { ...fine.point, level: 8 };
    samples[3] = { level: 8, latencies: fine.samples.latencies };
    const flags = new Map([[8, 'the agent flagged concurrency 8 generator-limited']]);
    const capacity = capacityUnderSlos({ curve, samples, slos: [p99(50)], parameter: 'concurrency', flags });
    expect(capacity.levels[3]!.judgement).toBe('skipped');
    expect(capacity.levels[3]!.checks[0]!.judgement).toBe('holds');
    expect(capacity.skipped_levels).toEqual([{ level: 8, reason: 'the agent flagged concurrency 8 generator-limited' }]);
    expect(capacity.level).toBe(4);
    expect(capacity.bracket.breaks?.level).toBe(16);
    expect(capacity.summary).toMatch(/Skipped \(not the service's numbers\): concurrency 8\./);
    // Without the flag the same numbers would have been counted as holding.
    expect(capacityUnderSlos({ curve, samples, slos: [p99(50)], parameter: 'concurrency' }).level).toBe(8);
  });

  it('skips a level whose window is still open', () => {
    const { curve, samples } = run([1, 2, 4]);
    curve[2] = { ...curve[2]!, in_progress: true };
    const capacity = capacityUnderSlos({ curve, samples, slos: [p99(50)], parameter: 'concurrency' });
    expect(capacity.level).toBe(2);
    expect(capacity.skipped_levels.map((s) => s.level)).toEqual([4]);
  });

  it('judges errors on a binomial interval', () => {
    // 4000 requests each: 0.2% errors holds under 1%, 2.5% breaks, 1% sits on the line.
    const { curve, samples } = run([1, 2, 4, 8], 4000, { 1: 8, 2: 8, 4: 40, 8: 100 });
    const capacity = capacityUnderSlos({ curve, samples, slos: [{ metric: 'errors', max_percent: 1 }], parameter: 'concurrency' });
    expect(capacity.levels.map((l) => l.judgement)).toEqual(['holds', 'holds', 'unclear', 'breaks']);
    const check = capacity.levels[3]!.checks[0]!;
    expect(check.basis).toBe('binomial');
    expect(check.value).toBeCloseTo((100 / 4100) * 100, 6);
    expect(check.low!).toBeGreaterThan(1);
    expect(capacity.level).toBe(2);
    expect(capacity.unclear_levels).toEqual([4]);
    expect(capacity.bracket.crossing?.level).toBeGreaterThan(2);
    expect(capacity.bracket.crossing?.level).toBeLessThan(8);
  });

  it('needs every SLO to hold: the first to break sets the bracket', () => {
    const { curve, samples } = run([1, 2, 4, 8, 16], 4000, { 4: 200 });
    const capacity = capacityUnderSlos({ curve, samples, slos: [p99(50), { metric: 'errors', max_percent: 1 }], parameter: 'concurrency' });
    expect(capacity.level).toBe(2);
    expect(capacity.bracket.breaks?.level).toBe(4);
    expect(capacity.levels[2]!.checks.map((c) => c.judgement)).toEqual(['holds', 'breaks']);
    expect(capacity.summary).toMatch(/^Within p99 ≤ 50 ms and errors ≤ 1%/);
  });

  it('judges on the curve alone when there are no samples, and says so', () => {
    const { curve } = run([1, 2, 4, 8]);
    const capacity = capacityUnderSlos({ curve, slos: [p99(50)], parameter: 'concurrency' });
    expect(capacity.samples).toBe('none');
    expect(capacity.levels.every((l) => l.checks[0]!.basis === 'point')).toBe(true);
    expect(capacity.level).toBe(4);
    expect(capacity.warnings.join(' ')).toMatch(/p99<=50ms judged on the curve's value alone/);
  });

  it('does not count a level that holds again above a break', () => {
    const { curve, samples } = run([1, 2, 4, 8, 16]);
    const low = level(2, 4000, 9);
    curve[4] = { ...low.point, level: 16 };
    samples[4] = { level: 16, latencies: low.samples.latencies };
    const capacity = capacityUnderSlos({ curve, samples, slos: [p99(50)], parameter: 'concurrency' });
    expect(capacity.level).toBe(4);
    expect(capacity.warnings.join(' ')).toMatch(/holds again at concurrency 16, above the break at 8/);
  });

  it('gives the same answer for the same input (seeded bootstrap)', () => {
    const { curve, samples } = run([1, 2, 4, 8]);
    const a = capacityUnderSlos({ curve, samples, slos: [p99(50)], parameter: 'concurrency', seed: 3 });
    const b = capacityUnderSlos({ curve, samples, slos: [p99(50)], parameter: 'concurrency', seed: 3 });
    expect(a).toEqual(b);
  });
});

