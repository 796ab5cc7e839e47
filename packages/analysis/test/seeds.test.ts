import { RunAnalysis } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { analyzeCurve } from '../src/analyze.ts';
import { seed000, seed001, seed003, seed004Before, seed004Carriers } from './fixtures/seeds.ts';

/** The verdicts a reader of each write-up would give, from its own table. */
describe('verdicts on the seed write-ups', () => {
  it('000: 9 ops/s at 1 and at 16 threads → does not scale (serialized), no fit from two levels', () => {
    const r = analyzeCurve(seed000);
    expect(r.verdict).toMatch(/^Does not scale \(serialized\)/);
    expect(r.verdict).toContain('threads 16');
    expect(r.usl).toBeNull();
    expect(r.knee).toBeNull();
    expect(r.warnings.some((w) => /at least 3/.test(w))).toBe(true);
    // The write-up's "scaling factor of 1.0" is 16 threads doing the work of one: 1/16 per thread.
    expect(r.efficiency.find((e) => e.level === 16)?.efficiency).toBeCloseTo(1 / 16, 12);
  });

  it('001: 20→100→100→103 QPS with p50 49→77→157→310 → knee and saturation at concurrency 8', () => {
    const r = analyzeCurve(seed001);
    expect(r.knee?.level).toBe(8);
    expect(r.knee?.method).toBe('kneedle');
    expect(r.knee?.reason).toBe(
      'Throughput stops growing at concurrency 8 (100 QPS, 97% of the peak) and p50 doubles by 16: requests queue above it.',
    );
    expect(r.knee_candidates.find((c) => c.method === 'latency')?.level).toBe(8);
    expect(r.verdict).toMatch(/^Saturates at concurrency 8 \(contention σ=/);
    // Past the knee latency is pure queueing, so Little's law holds and no level is generator-limited.
    expect(r.littles_law.every((c) => !c.generator_limited)).toBe(true);
    expect(r.warnings).toEqual([]);
  });

  it('003: shards 16→64 give 46,964→54,287 flows/s → saturates at 32, the write-up’s “best balanced” setting', () => {
    const r = analyzeCurve(seed003);
    expect(r.verdict).toMatch(/^Saturates at shards 32 \(contention σ=/);
    expect(r.knee?.level).toBe(32);
    expect(r.efficiency_basis).toContain('shards 16, the smallest level measured');
    expect(r.efficiency[0]).toEqual({ level: 16, efficiency: 1 });
  });

  it('004: carriers 16→256 peak at 128 then fall 11% → retrograde above 128 (coherency)', () => {
    const r = analyzeCurve(seed004Carriers);
    expect(r.verdict).toMatch(/^Retrograde above carriers 128 \(coherency κ=/);
    expect(r.verdict).toContain('falls 11%');
    expect(r.usl?.model).toBe('usl');
    expect(r.usl?.peak_level).toBeGreaterThan(64);
    expect(r.usl?.peak_level).toBeLessThan(256);
  });

  it('004 before the fix: ~99k RPS from 50 to 2000 workers → at its ceiling at 50 or below (not "serialized": 1 was never swept), and Little’s law blames the generator', () => {
    const r = analyzeCurve(seed004Before);
    expect(r.verdict).toMatch(/^Already at its ceiling at workers 50 or below — sweep lower to place the knee: throughput is retrograde, falling 7\.1% from 99,400 QPS at 50 to 92,300 at 2000\.$/);
    expect(r.verdict).not.toMatch(/serialized|efficiency/);
    expect(r.knee_candidates.find((c) => c.method === 'kneedle')).toBeUndefined();
    // ≈25 requests in flight (16 carriers' worth) against 50…2000 configured: every level is flagged.
    expect(r.littles_law.map((c) => c.generator_limited)).toEqual([true, true, true, true, true]);
    expect(r.littles_law.every((c) => c.in_flight < 25)).toBe(true);
    expect(r.warnings.some((w) => w.startsWith('Possibly generator-limited at workers 50'))).toBe(true);
  });

  it('every seed’s analysis matches the RunAnalysis contract', () => {
    for (const seed of [seed000, seed001, seed003, seed004Carriers, seed004Before]) {
      expect(RunAnalysis.safeParse(analyzeCurve(seed)).success).toBe(true);
    }
  });
});
