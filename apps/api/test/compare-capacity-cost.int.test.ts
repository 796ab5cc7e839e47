import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CompareResponse } from '@kneeboard/contracts';
import { formatChangeWithInterval } from '@kneeboard/contracts/figures';
import { batchOf, createRun, postJson, startTestApi, type TestApi } from './helpers.ts';

/**
 * The comparison's capacity at the query's SLOs (issue 26) and what each level's change cost the
 * server (issue 28), on runs with known curves: every request at a level takes exactly
 * level ÷ QPS seconds (so Little's law holds and no level is flagged), 10 s measured per level.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

// A whole second, an hour ago: events may not lie in the future.
const T0 = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
const LEVELS = [2, 4, 8];
const stepOf = (i: number) => ({ level: LEVELS[i]!, started_at: T0 + i * 12_000, measure_from: T0 + i * 12_000 + 2_000, ended_at: T0 + (i + 1) * 12_000 });

/**
 * A run serving `qps[level]` requests/s at each level, each taking level ÷ QPS; with `cores`, the
 * server's CPU at each level (a constant per-second rate over the whole step).
 */
async function storeRun(release: string, qps: Record<number, number>, cores?: Record<number, number>): Promise<string> {
  const id = await createRun(api.url, { service: 'cap-cost', release });
  const rows = [];
  for (const [i, level] of LEVELS.entries()) {
    const step = stepOf(i);
    expect((await postJson(`${api.url}/api/v1/runs/${id}/steps`, step)).status).toBe(200);
    const n = qps[level]! * 10;
    for (let k = 0; k < n; k++) rows.push({ level, ts: step.measure_from + ((k + 0.5) * 10_000) / n, latency: (level / qps[level]!) * 1000, status: 200 });
  }
  expect((await postJson(`${api.url}/api/v1/runs/${id}/events`, batchOf(rows, `b-${id}`))).status).toBe(200);
  for (const [i, level] of LEVELS.entries()) {
    if (!cores) break;
    const step = stepOf(i);
    const points = [];
    for (let s = step.started_at / 1000; s <= step.ended_at / 1000; s++) points.push({ metric: 'cpu', fn: 'rate', second: s, value: cores[level]! });
    expect((await postJson(`${api.url}/api/v1/runs/${id}/server-metrics`, { level, source: 'metrics-url', cores_available: 4, points })).status).toBe(200);
  }
  expect((await postJson(`${api.url}/api/v1/runs/${id}/finish`, { status: 'finished' })).status).toBe(200);
  return id;
}

const compare = async (query: string) => {
  const res = await fetch(`${api.url}/api/v1/compare?${query}`);
  return { status: res.status, body: (await res.json()) as unknown };
};
const slo = (text: string) => `slo=${encodeURIComponent(text)}`;

// p99 ≤ 100 ms: 40 ms at 2, 67 ms at 4, 114 ms at 8 (base) and 104 ms at 8 (head): both hold at 4 and break at 8.
const BASE_QPS = { 2: 50, 4: 60, 8: 70 };
const HEAD_QPS = { 2: 55, 4: 66, 8: 77 };

describe('GET /api/v1/compare with slo=: capacity at the same SLOs', () => {
  let base: string;
  let head: string;
  beforeAll(async () => {
    base = await storeRun('v1', BASE_QPS, { 2: 0.5, 4: 0.8, 8: 1.0 });
    head = await storeRun('v2', HEAD_QPS, { 2: 0.5, 4: 0.9, 8: 1.31 });
  });

  it('one run a side: capacity 60 → 66 req/s at concurrency 4 (+10%), the range the brackets allow, said to be no interval', async () => {
    const { status, body } = await compare(`base=${base}&head=${head}&${slo('p99<=100ms')}`);
    expect(status).toBe(200);
    const report = CompareResponse.parse(body);
    const c = report.heads[0]!.capacity!;
    expect(c.slos).toEqual(['p99<=100ms']);
    expect(c.basis).toBe('brackets');
    expect(c.base).toEqual({ runs: 1, qps: 60, low: 60, high: 70, level: 4 });
    expect(c.head).toEqual({ runs: 1, qps: 66, low: 66, high: 77, level: 4 });
    expect(c.change).toBeCloseTo(0.1, 12);
    // The head's lowest (66, its last level that holds) against the base's highest (70, its first break), and the reverse.
    expect(c.ci_low).toBeCloseTo(66 / 70 - 1, 12);
    expect(c.ci_high).toBeCloseTo(77 / 60 - 1, 12);
    expect(c.summary).toBe('v2 serves +10% [−5.7%…+28.3%] within p99<=100ms: 66.0 against 60.0 req/s (1 base and 1 head run; no interval: single run — the range the brackets allow)');

    // The same capacity each run's own analysis answers: one judgement, wherever it is read.
    for (const [id, qps] of [[base, 60], [head, 66]] as const) {
      const analysis = (await (await fetch(`${api.url}/api/v1/runs/${id}/analysis?${slo('p99<=100ms')}`)).json()) as { capacity: { level: number; qps: number } };
      expect([analysis.capacity.level, analysis.capacity.qps]).toEqual([4, qps]);
    }

    // Without slo=, no capacity; the rest of the report is unchanged by it.
    const plain = CompareResponse.parse((await compare(`base=${base}&head=${head}`)).body);
    expect(plain.heads[0]).not.toHaveProperty('capacity');
    expect(plain.heads[0]!.levels).toEqual(report.heads[0]!.levels);
  });

  it('repeats on both sides: one decision on the pooled samples, the interval from the repeats', async () => {
    const base2 = await storeRun('v1', { 2: 50, 4: 62, 8: 70 });
    const head2 = await storeRun('v2', { 2: 55, 4: 64, 8: 77 });
    const report = CompareResponse.parse((await compare(`base=${base},${base2}&head=${head},${head2}&${slo('p99<=100ms')}`)).body);
    const c = report.heads[0]!.capacity!;
    expect(c.basis).toBe('repeats');
    // Every run holds at 4 and breaks at 8, so the pool does too: its QPS the runs' mean there.
    expect(c.base).toMatchObject({ runs: 2, qps: 61, level: 4, low: 61, high: 70 });
    expect(c.head).toMatchObject({ runs: 2, qps: 65, level: 4, low: 65, high: 77 });
    expect(c.change).toBeCloseTo(65 / 61 - 1, 12);
    // A t interval centred on the change on the log scale, wide enough to include it.
    expect(Math.log(1 + c.ci_low!) + Math.log(1 + c.ci_high!)).toBeCloseTo(2 * Math.log(65 / 61), 9);
    expect(c.ci_low!).toBeLessThan(c.change!);
    expect(c.summary).toMatch(/^v2 ×2 serves \+6\.6% \[[^\]]+\] within p99<=100ms: 65\.0 against 61\.0 req\/s \(2 base and 2 head runs, interval from the repeats\)$/);
  });

  it('a bad clause is a 400 naming slo and the clause', async () => {
    for (const [text, message] of [
      ['p98<=50ms', 'SLO clause "p98<=50ms": unknown metric "p98"'],
      ['p99<=50', 'SLO clause "p99<=50"'],
    ] as const) {
      const { status, body } = await compare(`base=${base}&head=${head}&${slo(text)}`);
      expect(status).toBe(400);
      const error = ApiError.parse(body);
      expect(error.field).toBe('querystring.slo');
      expect(error.message).toContain(message);
    }
  });

  it('compare.md says the capacity line, and its link keeps slo=', async () => {
    const res = await fetch(`${api.url}/api/v1/compare.md?base=${base}&head=${head}&${slo('p99<=100ms')}&web=${encodeURIComponent('http://web.test')}`);
    expect(res.status).toBe(200);
    const md = await res.text();
    expect(md).toContain('**Capacity:** v2 serves +10% \\[−5.7%…+28.3%\\] within p99&lt;=100ms: 66.0 against 60.0 req/s');
    expect(md).toContain(`slo=p99%3C%3D100ms`);
  });
});

describe('cost changes per level, where both runs have server metrics', () => {
  it('"+10% QPS for +31% CPU at 8" (seed 002’s sentence) with the level’s own QPS interval; QPS per core follows', async () => {
    const base = await storeRun('v1', BASE_QPS, { 2: 0.5, 4: 0.8, 8: 1.0 });
    const head = await storeRun('v2', HEAD_QPS, { 2: 0.5, 4: 0.9, 8: 1.31 });
    const report = CompareResponse.parse((await compare(`base=${base}&head=${head}`)).body);
    const h = report.heads[0]!;
    const cost = h.cost!;
    expect(cost.levels.map((l) => l.level)).toEqual([2, 4, 8]);
    expect(cost.basis).toBe('single run');
    const at8 = cost.levels.find((l) => l.level === 8)!;
    const qps8 = h.levels.find((l) => l.level === 8)!.qps;
    expect(at8.qps).toEqual({ base: qps8.base, head: qps8.head, change: qps8.change, ci_low: qps8.ci_low, ci_high: qps8.ci_high });
    expect(qps8.change).toBeCloseTo(0.1, 12);
    // The mean of the window's eleven seconds, as the run's own cost page reads it.
    expect(at8.cores_used).toEqual({ base: 1, head: expect.closeTo(1.31, 12), change: expect.closeTo(0.31, 12), ci_low: null, ci_high: null });
    expect(at8.qps_per_core.base).toBeCloseTo(70, 9);
    expect(at8.qps_per_core.head).toBeCloseTo(77 / 1.31, 9);
    expect(at8.sentence).toBe(`${formatChangeWithInterval(qps8.change, qps8.ci_low, qps8.ci_high)} QPS for +31% CPU at 8`);
    expect(at8.sentence).toMatch(/^\+10% \[[^\]]+\] QPS for \+31% CPU at 8$/);
    const md = await (await fetch(`${api.url}/api/v1/compare.md?base=${base}&head=${head}`)).text();
    expect(md).toContain('**What it costs:**');
    expect(md).toContain('QPS for +31% CPU at 8');
  });

  it('a run without server metrics: no cost at all, and the Markdown as before', async () => {
    const base = await storeRun('v1', BASE_QPS, { 2: 0.5, 4: 0.8, 8: 1.0 });
    const head = await storeRun('v2', HEAD_QPS);
    const report = CompareResponse.parse((await compare(`base=${base}&head=${head}`)).body);
    expect(report.heads[0]).not.toHaveProperty('cost');
    expect(await (await fetch(`${api.url}/api/v1/compare.md?base=${base}&head=${head}`)).text()).not.toContain('What it costs');
  });
});
