import { describe, expect, it } from 'vitest';
import { parseSelectors, type Scrape } from '@kneeboard/server-metrics';
import { perSecondPoints } from '../src/sweep/server-cost.ts';

// Issue 28: a counter's per-second values are its increase over each whole second, read between
// scrapes as growing evenly, so they add up to what it counted however late a read ran.
const T = 1_800_000_000_000; // a whole second, epoch ms
const selectors = parseSelectors([]); // cpu = rate(process_cpu_seconds_total), mem = max(process_resident_memory_bytes)
const at = (ms: number, cpu: number, mem = 1e6): Scrape => ({ atMs: T + ms, samples: [{ name: 'process_cpu_seconds_total', labels: {}, value: cpu }, { name: 'process_resident_memory_bytes', labels: {}, value: mem }] });
const cpuOf = (scrapes: Scrape[]) =>
  perSecondPoints(scrapes, selectors)
    .filter((p) => p.metric === 'cpu')
    .sort((a, b) => a.second - b.second)
    .map((p) => [p.second - T / 1000, Number(p.value.toFixed(9))]);

describe('perSecondPoints', () => {
  it('reads on whole seconds: each second’s value is the CPU of that second', () => {
    expect(cpuOf([at(0, 0), at(1_000, 0.5), at(2_000, 1.5), at(3_000, 1.75)])).toEqual([
      [1, 0.5],
      [2, 1],
      [3, 0.25],
    ]);
  });

  it('a late read changes nothing for an even load: the seconds add up to the counter’s increase', () => {
    // 0.4 cores throughout; the second read ran 400 ms late, the fourth 300 ms late (the agent reads 5 ms past each second; here on it, for round figures).
    const pts = cpuOf([at(0, 0), at(1_400, 0.56), at(2_000, 0.8), at(3_300, 1.32), at(4_000, 1.6)]);
    expect(pts).toEqual([
      [1, 0.4],
      [2, 0.4],
      [3, 0.4],
      [4, 0.4],
    ]);
  });

  it('never fills a gap (reads more than 1.5 intervals apart), a reset counted from 0, gauges as read', () => {
    const scrapes = [at(0, 1), at(1_000, 1.5), at(4_000, 3), at(5_000, 3.5), at(6_000, 0.25, 2e6)];
    expect(cpuOf(scrapes)).toEqual([
      [1, 0.5],
      [5, 0.5],
      [6, 0.25],
    ]);
    const mem = perSecondPoints(scrapes, selectors).filter((p) => p.metric === 'mem');
    expect(mem.map((p) => [p.second - T / 1000, p.value, p.fn])).toEqual([
      [0, 1e6, 'max'],
      [1, 1e6, 'max'],
      [4, 1e6, 'max'],
      [5, 1e6, 'max'],
      [6, 2e6, 'max'],
    ]);
    // A failed scrape in the middle is a gap too: nothing made up across it.
    expect(cpuOf([at(0, 0), { atMs: T + 1_000, error: 'HTTP 500' }, at(2_000, 1)])).toEqual([]);
  });
});
