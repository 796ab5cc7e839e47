import { describe, expect, it } from 'vitest';
import { Capacity, CapacityChange, parseSlos, type CurvePoint } from '@kneeboard/contracts';
import { compareCapacity, isCapacityDrop } from '../src/index.ts';
import { pooledCapacity, type CapacityRun } from '../src/compare/index.ts';

const slos = (text: string) => {
  const parsed = parseSlos(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.clauses;
};

/** A level whose `n` successful requests all took `ms` (a known p99), at `qps`. */
function point(level: number, qps: number, ms: number, n: number): CurvePoint {
  return { level, requests: n, errors: 0, qps, window_s: 10, p50_ms: ms, p90_ms: ms, p99_ms: ms, p999_ms: ms, compute_p50_ms: null, compute_p99_ms: null, queue_p50_ms: null, queue_p99_ms: null, other_p50_ms: null, in_progress: false };
}

/** One run of levels 1, 2, 4, 8: 10 ms up to 4, 100 ms at 8; `n` requests a level; QPS 100 × level × scale. */
function run(n: number, scale = 1, flags: Array<[number, string]> = []): CapacityRun {
  const levels: Array<[number, number]> = [[1, 10], [2, 10], [4, 10], [8, 100]];
  return {
    curve: levels.map(([level, ms]) => point(level, 100 * level * scale, ms, n)),
    samples: levels.map(([level, ms]) => ({ level, latencies: Array.from({ length: n }, () => ms) })),
    flags: new Map(flags),
  };
}

describe('pooledCapacity: repeats judged together', () => {
  it('a p99 each run is too thin to judge (300 requests: 3 above the p99) is judged on the pool (600: 6 above)', () => {
    const slo = slos('p99<=50ms');
    const alone = pooledCapacity([run(300)], slo, 'concurrency', 1);
    expect(alone.level).toBeNull();
    expect(alone.unclear_levels).toEqual([1, 2, 4, 8]);
    const pooled = pooledCapacity([run(300), run(300, 1.02)], slo, 'concurrency', 1);
    expect(pooled.level).toBe(4);
    // The QPS is the runs' mean at that level; the first break is 8, at the runs' mean too.
    expect(pooled.qps).toBeCloseTo((400 + 408) / 2, 9);
    expect(pooled.bracket.breaks).toEqual({ level: 8, qps: (800 + 816) / 2 });
    expect(pooled.levels.find((l) => l.level === 4)?.checks[0]).toMatchObject({ value: 10, low: 10, high: 10, judgement: 'holds' });
  });

  it('a level any run flags is skipped with that run’s reason, never evidence', () => {
    const pooled = pooledCapacity([run(600), run(600, 1, [[4, 'the agent flagged concurrency 4 generator-limited']])], slos('p99<=50ms'), 'concurrency', 1);
    expect(pooled.skipped_levels).toEqual([{ level: 4, reason: 'the agent flagged concurrency 4 generator-limited' }]);
    expect(pooled.level).toBe(2);
  });
});

describe('compareCapacity with the sides’ pooled decisions', () => {
  const cap = (holds: { level: number; qps: number } | null, breaks: { level: number; qps: number } | null): Capacity =>
    Capacity.parse({ slos: ['p99<=50ms'], confidence: 0.95, samples: 'exact', level: holds?.level ?? null, qps: holds?.qps ?? null, bracket: { holds, breaks, crossing: null }, unclear_levels: [], skipped_levels: [], levels: [], summary: '', warnings: [] });

  it('each side’s capacity is its pooled decision; the interval’s spread is still the repeats’', () => {
    const base = [cap({ level: 16, qps: 400 }, { level: 17, qps: 420 }), cap({ level: 16, qps: 404 }, { level: 17, qps: 424 })];
    const head = [cap({ level: 18, qps: 450 }, { level: 19, qps: 470 }), cap({ level: 18, qps: 454 }, { level: 19, qps: 474 })];
    const pooled = { base: cap({ level: 16, qps: 402 }, { level: 17, qps: 422 }), head: cap({ level: 18, qps: 452 }, { level: 19, qps: 472 }) };
    const c = CapacityChange.parse(compareCapacity(base, head, 'v2', pooled));
    expect(c.basis).toBe('repeats');
    expect(c.base).toEqual({ runs: 2, qps: 402, low: 402, high: 422, level: 16 });
    expect(c.head).toEqual({ runs: 2, qps: 452, low: 452, high: 472, level: 18 });
    expect(c.change).toBeCloseTo(452 / 402 - 1, 12);
    // The interval is centred on the pooled change, on the log scale.
    expect(Math.log(1 + c.ci_low!) + Math.log(1 + c.ci_high!)).toBeCloseTo(2 * Math.log(452 / 402), 9);
    expect(c.summary).toMatch(/^v2 serves \+12% \[[^\]]+\] within p99<=50ms: 452 against 402 req\/s \(2 base and 2 head runs, interval from the repeats\)$/);
    expect(isCapacityDrop(c, 0.05)).toBe(false);
  });

  it('one run a side, each its own decision: the same range from the brackets, said to be no interval', () => {
    const b = cap({ level: 16, qps: 400 }, { level: 17, qps: 410 });
    const h = cap({ level: 20, qps: 500 }, { level: 21, qps: 520 });
    const c = compareCapacity([b], [h], 'v2', { base: b, head: h });
    // The CLI's per-run path (no decisions passed) gives the same change and range, in its own words.
    const perRun = compareCapacity([b], [h], 'v2');
    expect([c.change, c.ci_low, c.ci_high]).toEqual([perRun.change, perRun.ci_low, perRun.ci_high]);
    expect(perRun.summary).toMatch(/\(1 base and 1 head run, interval from the brackets\)$/);
    expect(c.ci_low).toBeCloseTo(500 / 410 - 1, 12);
    expect([c.base.level, c.head.level]).toEqual([16, 20]);
    expect(c.summary).toBe('v2 serves +25% [+22%…+30%] within p99<=50ms: 500 against 400 req/s (1 base and 1 head run; no interval: single run — the range the brackets allow)');
  });

  it('a pool where no level holds has no estimate, whatever its runs said alone', () => {
    const base = [cap({ level: 16, qps: 400 }, { level: 17, qps: 420 }), cap({ level: 16, qps: 404 }, { level: 17, qps: 424 })];
    const c = compareCapacity(base, base, 'v2', { base: cap({ level: 16, qps: 402 }, { level: 17, qps: 422 }), head: cap(null, { level: 1, qps: 30 }) });
    expect(c.change).toBeNull();
    expect(c.basis).toBe('brackets');
    expect(c.head).toMatchObject({ qps: null, level: null, high: 30 });
  });
});
