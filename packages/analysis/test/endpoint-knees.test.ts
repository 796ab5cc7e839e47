import { describe, expect, it } from 'vitest';
import { analyzeCurve } from '../src/analyze.ts';
import { analyzeEndpoints } from '../src/endpoint-knees.ts';
import { demoTarget } from './fixtures/synthetic.ts';

const doubling = [1, 2, 4, 8, 16, 32, 64];

/** A name's curve: a pool of `workers` taking `serviceMs`, its p99 twice its p50. */
const named = (name: string, workers: number, serviceMs: number) => ({
  name,
  requests: 1000,
  curve: demoTarget(workers, serviceMs, doubling).map((p) => ({ ...p, p99_ms: (p.p50_ms ?? 0) * 2 })),
});

describe('analyzeEndpoints', () => {
  it('names the endpoint whose own knee comes first and the one with the highest p99 at the run knee', () => {
    const checkout = named('checkout', 4, 50);
    const search = named('search', 16, 5);
    const cart = named('cart', 32, 2);
    const r = analyzeEndpoints({ runKnee: 4, levels: doubling, load_model: 'closed', parameter: 'concurrency', names: [search, checkout, cart] });
    expect(r.saturates_first).toBe('checkout');
    expect(r.dominates_p99).toBe('checkout');
    expect(r.level).toBe(4);
    expect(r.level_is_knee).toBe(true);
    expect(r.endpoints.map((e) => [e.name, e.knee_level])).toEqual([
      ['cart', analyzeCurve({ curve: cart.curve, load_model: 'closed', parameter: 'concurrency' }).knee?.level ?? null],
      ['checkout', 4],
      ['search', 16],
    ]);
    expect(r.endpoints.find((e) => e.name === 'checkout')?.p99_ms).toBe(100);
    expect(r.summary).toBe('checkout saturates first: its knee is at concurrency 4 (the next: search at 16). At the run\'s knee (concurrency 4) checkout dominates p99: 100 ms, against 10.0 ms for search.');
  });

  it('tells the two apart when the first to saturate is not the slowest at the knee', () => {
    // fast saturates at 8 but stays at a few ms; slow never saturates in the sweep but is slow.
    const fast = named('fast', 8, 1);
    const slow = named('slow', 1000, 400);
    const r = analyzeEndpoints({ runKnee: 8, levels: doubling, load_model: 'closed', parameter: 'concurrency', names: [fast, slow] });
    expect(r.saturates_first).toBe('fast');
    expect(r.dominates_p99).toBe('slow');
    expect(r.endpoints.find((e) => e.name === 'slow')?.knee_level).toBeNull();
  });

  it('compares at the highest level when the run shows no knee, and says when no endpoint has one', () => {
    const a = named('a', 1000, 3);
    const b = named('b', 1000, 7);
    const r = analyzeEndpoints({ runKnee: null, levels: doubling, load_model: 'closed', parameter: 'concurrency', names: [a, b] });
    expect(r.level).toBe(64);
    expect(r.level_is_knee).toBe(false);
    expect(r.saturates_first).toBeNull();
    expect(r.dominates_p99).toBe('b');
    expect(r.summary).toBe('No endpoint shows a knee in the levels swept. At the highest level (concurrency 64) b dominates p99: 14.0 ms, against 6.00 ms for a.');
  });

  it('answers nothing for a run with no data', () => {
    const r = analyzeEndpoints({ runKnee: null, levels: [], load_model: 'closed', parameter: 'concurrency', names: [{ name: 'a', requests: 0, curve: [] }] });
    expect(r).toMatchObject({ level: null, saturates_first: null, dominates_p99: null });
  });
});
