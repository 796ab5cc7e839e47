import { describe, expect, it } from 'vitest';
import { prng } from '@kneeboard/analysis';
import { MicrosHistogram, newHdrHistogram } from '../src/load/micros-histogram.ts';

const PERCENTILES = [0, 0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100];

/** Records the values in both and expects the library's answers, percentile for percentile. */
function expectSameAsLibrary(values: number[]): void {
  const ours = new MicrosHistogram();
  const lib = newHdrHistogram();
  for (const v of values) {
    ours.recordValue(v);
    lib.recordValue(v);
  }
  const h = ours.hdr();
  expect(ours.totalCount).toBe(lib.totalCount);
  expect(h.totalCount).toBe(lib.totalCount);
  expect(PERCENTILES.map((p) => h.getValueAtPercentile(p))).toEqual(PERCENTILES.map((p) => lib.getValueAtPercentile(p)));
  expect(h.mean).toBe(lib.mean);
}

describe('MicrosHistogram', () => {
  it("gives the HDR library's percentiles for values at every bucket edge", () => {
    const edges: number[] = [0, 1, 2, 3];
    for (let k = 10; k <= 45; k++) for (const d of [-2, -1, 0, 1, 2]) edges.push(2 ** k + d);
    edges.push(2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, Number.MAX_SAFE_INTEGER / 4);
    for (const v of edges) expectSameAsLibrary([v]);
    expectSameAsLibrary(edges);
  });

  it("gives the HDR library's percentiles for latency-like samples (µs, long tail)", () => {
    const rand = prng(27);
    for (const scale of [50, 400, 20_000, 3_000_000]) {
      const values = Array.from({ length: 20_000 }, () => Math.round(scale * -Math.log(1 - rand()) + (rand() < 0.001 ? scale * 100 : 0)));
      expectSameAsLibrary(values);
    }
  });

  it('counts nothing into the library until asked, and asking twice gives the same answer', () => {
    const ours = new MicrosHistogram();
    expect(ours.totalCount).toBe(0);
    expect(ours.hdr().totalCount).toBe(0);
    for (const v of [5, 500, 5_000_000_000]) ours.recordValue(v);
    expect(ours.hdr().getValueAtPercentile(50)).toBe(ours.hdr().getValueAtPercentile(50));
    expect(ours.hdr().totalCount).toBe(3);
  });

  it('refuses a negative value as the library does', () => {
    expect(() => new MicrosHistogram().recordValue(-1)).toThrow(/negative/);
  });
});
