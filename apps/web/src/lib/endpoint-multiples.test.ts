import type { NameCurve, RunNameCurves } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { linePath, MAX_MULTIPLES, multiplesOrder, prepareMultiples } from './endpoint-multiples.ts';

const LEVELS = [1, 2, 4, 8, 16, 32];
function curve(name: string, requests: number, knee: number | null, qps: number[], p99: Array<number | null>): NameCurve {
  return { name, requests, knee_level: knee, curve: LEVELS.map((level, i) => ({ level, requests: 100, errors: 0, qps: qps[i]!, p50_ms: null, p99_ms: p99[i]! })) };
}

const search = curve('search', 6000, null, [12, 24, 47, 93, 180, 330], [30, 31, 32, 33, 36, 41]);
const cart = curve('cart', 2000, 4, [6, 12, 21, 22, 22.5, 23], [90, 93, 114, 240, 480, 960]);
const login = curve('login', 500, 16, [2, 4, 8, 15, 27, 28], [60, 61, null, 72, 90, 400]);
const answer: RunNameCurves = { percentiles: 'exact', names: [search, cart, login], omitted: 0 };

describe('multiplesOrder', () => {
  it('puts the one that gives out first first, then by knee level, the knee-less last, busier first among equals', () => {
    const quiet = curve('quiet', 10, null, [1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]);
    expect(multiplesOrder([search, quiet, login, cart], 'cart').map((n) => n.name)).toEqual(['cart', 'login', 'search', 'quiet']);
    // The analysis' pick wins even over a lower knee (it weighs ties by the tail at that level).
    expect(multiplesOrder([search, cart, login], 'login').map((n) => n.name)).toEqual(['login', 'cart', 'search']);
    expect(multiplesOrder([search, cart, login], null).map((n) => n.name)).toEqual(['cart', 'login', 'search']);
  });
});

describe('prepareMultiples', () => {
  const view = prepareMultiples(answer, 'cart', 'concurrency');

  it('draws every card on the same axes: a log level axis for a doubling sweep, QPS from 0, p99 on one log scale', () => {
    expect(view.xScale).toBe('log');
    expect(view.x.domain).toEqual([1, 32]);
    expect(view.x.ticks[0]).toBe(1);
    expect(view.x.ticks[view.x.ticks.length - 1]).toBe(32);
    expect(view.x.ticks.length).toBeLessThanOrEqual(5);
    expect(view.qps.domain[0]).toBe(0);
    expect(view.qps.domain[1]).toBeGreaterThanOrEqual(330);
    expect(view.p99!.domain[0]).toBeLessThanOrEqual(30);
    expect(view.p99!.domain[1]).toBeGreaterThanOrEqual(960);
    // The same level sits at the same x in every card; the busiest endpoint's top QPS reaches the top of the shared axis.
    const xs = view.cards.map((c) => c.points.map((p) => p.x));
    expect(new Set(xs.map((x) => x.join()))).toHaveProperty('size', 1);
    expect(xs[0]![0]).toBe(0);
    expect(xs[0]![5]).toBe(1);
    expect(xs[0]![3]).toBeCloseTo(0.6, 10);
    const top = view.cards.find((c) => c.name === 'search')!.points[5]!;
    expect(top.qps).toBeCloseTo(330 / view.qps.domain[1], 10);
    expect(view.cards.find((c) => c.name === 'cart')!.points[5]!.qps).toBeLessThan(0.1);
  });

  it('marks each knee on the level axis and the endpoint that gives out first; a missing p99 is a gap, never 0', () => {
    expect(view.cards.map((c) => [c.name, c.kneeLevel, c.first])).toEqual([
      ['cart', 4, true],
      ['login', 16, false],
      ['search', null, false],
    ]);
    expect(view.cards[0]!.kneeX).toBeCloseTo(0.4, 10);
    expect(view.cards[2]!.kneeX).toBeNull();
    const gap = view.cards[1]!.points[2]!;
    expect(gap.p99).toBeNull();
    expect(gap.p99Value).toBeNull();
    expect(view.cards.map((c) => Number(c.share.toFixed(3)))).toEqual([0.235, 0.059, 0.706]);
    expect(view.cards[0]!.label).toBe('cart: 6.0 to 23.0 req/s from concurrency 1 to 32, p99 90.0 to 960 ms; knee at concurrency 4');
    expect(view.cards[2]!.label).toMatch(/; no knee$/);
    expect(view.more).toBe(0);
  });

  it('draws at most MAX_MULTIPLES cards and counts the rest, with any the API left out', () => {
    const many = Array.from({ length: MAX_MULTIPLES + 5 }, (_, i) => curve(`e${i}`, 1000 - i, null, [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]));
    const v = prepareMultiples({ percentiles: 'rollup', names: many, omitted: 2 }, null, 'concurrency');
    expect(v.cards).toHaveLength(MAX_MULTIPLES);
    expect(v.cards[0]!.name).toBe('e0');
    expect(v.more).toBe(7);
  });

  it('uses a linear level axis from 0 for a sweep in even steps, and no p99 axis when no endpoint has one', () => {
    const even: NameCurve = { name: 'a', requests: 1, knee_level: null, curve: [10, 15, 20, 25].map((level) => ({ level, requests: 1, errors: 1, qps: 0, p50_ms: null, p99_ms: null })) };
    const v = prepareMultiples({ percentiles: 'exact', names: [even], omitted: 0 }, null, 'rate');
    expect(v.xScale).toBe('linear');
    expect(v.x.domain).toEqual([0, 25]);
    expect(v.p99).toBeNull();
    expect(v.cards[0]!.points.map((p) => p.p99)).toEqual([null, null, null, null]);
  });
});

describe('linePath', () => {
  it('breaks the line at a gap and scales to the box, y down', () => {
    expect(linePath([{ x: 0, y: 0 }, { x: 0.5, y: 1 }, { x: 0.75, y: null }, { x: 1, y: 0.5 }], 100, 50)).toBe('M0 50L50 0M100 25');
    expect(linePath([], 100, 50)).toBe('');
  });
});
