import { describe, expect, it } from 'vitest';
import { analyzeCurve } from '../src/analyze.ts';
import { curve } from './fixtures/curve.ts';

/**
 * An open-loop server with capacity C req/s: it serves min(offered, C); p99 follows an M/M/1-like
 * queue, S / (1 − ρ), capped where the queue would be unbounded.
 */
function openLoop(capacity: number, serviceMs: number, rates: readonly number[]) {
  return curve(
    rates.map((rate) => ({
      level: rate,
      qps: Math.min(rate, capacity),
      p50: serviceMs,
      p99: (4.6 * serviceMs) / (1 - Math.min(rate / capacity, 0.98)),
    })),
  );
}

const rates = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000];

describe('open-loop curves (level = offered rate)', () => {
  it('saturates where the achieved rate falls >5% short of the offered one', () => {
    const r = analyzeCurve({ parameter: 'rate', load_model: 'open', curve: openLoop(650, 5, rates) });
    const sat = r.knee_candidates.find((c) => c.method === 'open_saturation');
    expect(sat?.level).toBe(600);
    expect(sat?.reason).toBe(
      'The server keeps up with the offered rate up to rate 600 (600 achieved) but falls 7.1% short at 700 (650 achieved): it saturates between the two.',
    );
    expect(r.verdict).toMatch(/^Saturates at rate 600 \(achieved falls short of offered above it\)/);
    expect(r.usl).toBeNull();
    expect(r.littles_law).toEqual([]);
  });

  it('calls the knee where p99 bends upward when that comes first', () => {
    const r = analyzeCurve({ parameter: 'rate', load_model: 'open', curve: openLoop(650, 5, rates) });
    const bend = r.knee_candidates.find((c) => c.method === 'open_p99');
    expect(bend).toBeDefined();
    expect(bend?.level).toBeGreaterThanOrEqual(400);
    expect(bend?.level).toBeLessThanOrEqual(600);
    expect(r.knee?.level).toBe(Math.min(bend?.level ?? Infinity, 600));
  });

  it('has no knee and scales linearly while the server keeps up and p99 stays flat', () => {
    const r = analyzeCurve({ parameter: 'rate', load_model: 'open', curve: openLoop(1e6, 5, rates) });
    expect(r.knee).toBeNull();
    expect(r.verdict).toBe('Scales linearly to rate 1000 (efficiency 100% there).');
  });

  it('notices a server saturated from the lowest offered rate', () => {
    const r = analyzeCurve({ parameter: 'rate', load_model: 'open', curve: openLoop(50, 5, rates) });
    const sat = r.knee_candidates.find((c) => c.method === 'open_saturation');
    expect(sat?.level).toBe(100);
    expect(sat?.reason).toMatch(/already 50% short .* saturated throughout/);
  });
});
