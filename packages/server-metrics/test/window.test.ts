import { describe, expect, it } from 'vitest';
import type { Sample } from '../src/exposition.ts';
import { parseSelector, parseSelectors } from '../src/selector.ts';
import { counterRate, measureWindow, type Scrape } from '../src/window.ts';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const at = (s: number) => T0 + s * 1000;
const proc = (s: number, cpu: number, rss: number): Scrape => ({
  atMs: at(s),
  samples: [
    { name: 'process_cpu_seconds_total', labels: {}, value: cpu },
    { name: 'process_resident_memory_bytes', labels: {}, value: rss },
  ],
});

describe('measureWindow with the defaults', () => {
  it('gives cores used over the window and peak memory, with no gaps on a steady 1 s scrape', () => {
    // 1.5 CPU-seconds per second for 4 s.
    const scrapes = [0, 1, 2, 3, 4].map((s) => proc(s, 10 + 1.5 * s, [100, 300, 200, 250, 120][s]!));
    const cost = measureWindow(scrapes, { startMs: at(0), endMs: at(4) });
    expect(cost.values.cpu!.value).toBeCloseTo(1.5, 12);
    expect(cost.values.mem!.value).toBe(300);
    expect(cost.values.cpu!.points).toBe(5);
    expect(cost.messages).toEqual([]);
  });

  it('uses only the scrapes inside the window', () => {
    const scrapes = [proc(0, 0, 9e9), proc(1, 1, 1), proc(2, 3, 2), proc(3, 5, 3), proc(4, 100, 9e9)];
    const cost = measureWindow(scrapes, { startMs: at(1), endMs: at(3) });
    expect(cost.values.cpu!.value).toBe(2);
    expect(cost.values.mem!.value).toBe(3);
  });

  it('names a gap, with the reasons scrapes failed, and still computes over what it has', () => {
    const scrapes: Scrape[] = [
      proc(0, 0, 1),
      proc(1, 1, 1),
      proc(2, 2, 1),
      { atMs: at(3), error: 'connect ECONNREFUSED 127.0.0.1:9100' },
      { atMs: at(4), error: 'HTTP 500' },
      proc(5, 5, 7),
    ];
    const cost = measureWindow(scrapes, { startMs: at(0), endMs: at(5) });
    expect(cost.values.cpu!.value).toBe(1);
    expect(cost.values.mem!.value).toBe(7);
    expect(cost.messages).toEqual([
      'cpu: no samples between 12:00:02 and 12:00:05 (connect ECONNREFUSED 127.0.0.1:9100; HTTP 500)',
      'mem: no samples between 12:00:02 and 12:00:05 (connect ECONNREFUSED 127.0.0.1:9100; HTTP 500)',
    ]);
  });

  it('names gaps at the window edges and a metric that is not there', () => {
    const noCpu: Scrape = { atMs: at(2), samples: [{ name: 'process_resident_memory_bytes', labels: {}, value: 5 }] };
    const cost = measureWindow([noCpu, proc(3, 1, 6)], { startMs: at(0), endMs: at(6) });
    expect(cost.values.cpu!.value).toBeNull(); // one point is not a rate
    expect(cost.values.mem!.value).toBe(6);
    expect(cost.messages).toEqual([
      'cpu: no samples between 12:00:00 and 12:00:03 (no series matches process_cpu_seconds_total)',
      'cpu: no samples between 12:00:03 and 12:00:06',
      'mem: no samples between 12:00:00 and 12:00:02',
      'mem: no samples between 12:00:03 and 12:00:06',
    ]);
  });

  it('treats a counter drop as a restart from 0 and says so', () => {
    // 0 → 2 → (restart) 1 → 3: increases 2 + 1 + 2 = 5 over 3 s.
    const scrapes = [proc(0, 0, 1), proc(1, 2, 1), proc(2, 1, 1), proc(3, 3, 1)];
    const cost = measureWindow(scrapes, { startMs: at(0), endMs: at(3) });
    expect(cost.values.cpu!.value).toBeCloseTo(5 / 3, 12);
    expect(cost.values.cpu!.resets.map((r) => r.atMs)).toEqual([at(2)]);
    expect(cost.messages).toEqual(['cpu: counter reset at 12:00:02 (counted as a restart from 0)']);
  });

  it('honours a longer scrape interval before calling a stretch a gap', () => {
    const scrapes = [proc(0, 0, 1), proc(5, 5, 1), proc(10, 10, 1)];
    expect(measureWindow(scrapes, { startMs: at(0), endMs: at(10) }).messages).toHaveLength(4);
    expect(measureWindow(scrapes, { startMs: at(0), endMs: at(10) }, undefined, { intervalMs: 5000 }).messages).toEqual([]);
  });
});

describe('selectors over several series', () => {
  const c = (name: string, container: string, value: number): Sample => ({ name, labels: { container }, value });
  const scrape = (s: number, search: number, db: number): Scrape => ({
    atMs: at(s),
    samples: [c('container_cpu_usage_seconds_total', 'search', search), c('container_cpu_usage_seconds_total', 'db', db), c('container_memory_working_set_bytes', 'search', search * 100), c('container_memory_working_set_bytes', 'db', db * 100)],
  });
  const scrapes = [scrape(0, 0, 0), scrape(1, 2, 0.5), scrape(2, 4, 1)];
  const w = { startMs: at(0), endMs: at(2) };

  it('selects one container with =, the others with !=, and sums a rate across series', () => {
    const sel = parseSelectors(['search=rate(container_cpu_usage_seconds_total{container="search"})', 'rest=rate(container_cpu_usage_seconds_total{container!="search"})', 'all=rate(container_cpu_usage_seconds_total)']);
    const cost = measureWindow(scrapes, w, sel);
    expect([cost.values.search!.value, cost.values.rest!.value, cost.values.all!.value]).toEqual([2, 0.5, 2.5]);
  });

  it('takes mean and max of a gauge summed per scrape', () => {
    const sel = parseSelectors(['avg=mean(container_memory_working_set_bytes)', 'peak=max(container_memory_working_set_bytes{container="db"})']);
    const cost = measureWindow(scrapes, w, sel);
    expect(cost.values.avg!.value).toBe((0 + 250 + 500) / 3);
    expect(cost.values.peak!.value).toBe(100);
  });

  it('resets per series: one container restarting does not touch the other', () => {
    const restart = [scrape(0, 5, 1), scrape(1, 6, 2), scrape(2, 0.5, 3)];
    const cost = measureWindow(restart, w, [parseSelector('cpu=rate(container_cpu_usage_seconds_total)')]);
    // search: 1 + 0.5; db: 2 → 3.5 CPU-seconds over 2 s.
    expect(cost.values.cpu!.value).toBe(1.75);
    expect(cost.messages).toEqual(['cpu: counter reset at 12:00:02 {container="search"} (counted as a restart from 0)']);
  });

  it('uses the exposition timestamp when a sample carries one', () => {
    const withTs: Scrape[] = [
      { atMs: at(0), samples: [{ name: 'x', labels: {}, value: 0, timestampMs: at(0) - 500 }] },
      { atMs: at(1), samples: [{ name: 'x', labels: {}, value: 3, timestampMs: at(1) + 500 }] },
    ];
    expect(measureWindow(withTs, w, [parseSelector('r=rate(x)')]).values.r!.value).toBe(1.5);
  });
});

describe('counterRate', () => {
  it('skips NaN-free duplicates of one timestamp and needs a time span', () => {
    expect(counterRate([])).toBeNull();
    expect(counterRate([{ t: 0, v: 1 }, { t: 0, v: 1 }])).toBeNull();
    expect(counterRate([{ t: 1000, v: 4 }, { t: 0, v: 1 }, { t: 1000, v: 4 }])).toEqual({ rate: 3, increase: 3, resetsAt: [] });
  });
});
