import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedMs } from '@kneeboard/clickhouse';
import { LevelDetail, RunDetail, SPECTRUM_PERCENTS } from '@kneeboard/contracts';
import { batchOf, createRun, percentile, postJson, prng, startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

const T0 = 1_800_000_000_000;
const STEP = { level: 8, started_at: T0, measure_from: T0 + 2_000, ended_at: T0 + 12_000 };

interface Row {
  level: number;
  ts: number;
  latency: number;
  status: number;
}

/**
 * A level with a known answer: a 2 s warm-up at half the rate and twice the latency, then a 10 s
 * window with a 1 s stall (no requests) at 6–7 s, lognormal latencies with a 1% slow tail, 2% 503s,
 * 0.5% transport errors (status 0), and rows of another level that must not count.
 */
function rowsForLevel(): Row[] {
  const rand = prng(7);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const rows: Row[] = [];
  for (let k = 0; k < 800; k++) rows.push({ level: 8, ts: T0 + rand() * 2_000, latency: 40 * Math.exp(0.3 * gaussian()), status: 200 });
  for (let k = 0; k < 9_000; k++) {
    let ts = STEP.measure_from + rand() * 9_000;
    if (ts >= T0 + 6_000) ts += 1_000; // the stall: nothing completes from 6 s to 7 s
    const u = rand();
    const status = u < 0.005 ? 0 : u < 0.025 ? 503 : 200;
    rows.push({ level: 8, ts, latency: 20 * Math.exp(0.25 * gaussian()) + (rand() < 0.01 ? 300 : 0), status });
  }
  for (let k = 0; k < 500; k++) rows.push({ level: 4, ts: T0 + 13_000 + rand() * 5_000, latency: 10, status: 200 });
  return rows;
}

async function getLevel(runId: string, level: string | number) {
  const res = await fetch(`${api.url}/api/v1/runs/${runId}/levels/${level}`);
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('GET /api/v1/runs/{id}/levels/{level}', () => {
  it('answers the window statistics, the exact spectrum, the histogram, the timeline with warm-up and the status codes', async () => {
    const runId = await createRun(api.url);
    const rows = rowsForLevel();
    for (const step of [STEP, { level: 4, started_at: T0 + 13_000, measure_from: T0 + 13_000, ended_at: T0 + 18_000 }]) {
      expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, step)).status).toBe(200);
    }
    for (let i = 0; i < rows.length; i += 4_000) expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, batchOf(rows.slice(i, i + 4_000), `b${i}`))).status).toBe(200);

    const res = await getLevel(runId, 8);
    expect(res.status).toBe(200);
    const d = LevelDetail.parse(res.body);

    // What storage keeps: times rounded to the µs on the way in (the raw events table holds integer µs).
    const stored = rows.map((r) => ({ ...r, ts: storedMs(r.ts), latency: storedMs(r.latency) }));
    const inWindow = stored.filter((r) => r.level === 8 && r.ts >= STEP.measure_from && r.ts <= STEP.ended_at);
    const ok = inWindow.filter((r) => r.status >= 1 && r.status <= 399).map((r) => r.latency);
    expect(d.requests).toBe(inWindow.length);
    expect(d.ok).toBe(ok.length);
    expect(d.errors).toBe(inWindow.length - ok.length);
    expect(d.window_s).toBe(10);
    expect(d.qps).toBeCloseTo(ok.length / 10, 6);
    expect(d.min_ms).toBeCloseTo(Math.min(...ok), 9);
    expect(d.max_ms).toBeCloseTo(Math.max(...ok), 9);
    expect(d.mean_ms).toBeCloseTo(ok.reduce((a, b) => a + b, 0) / ok.length, 6);

    // The spectrum: every percentile within 1% of the exact value computed here (it is exact, so far closer).
    expect(d.spectrum.map((s) => s.p)).toEqual([...SPECTRUM_PERCENTS]);
    for (const s of d.spectrum) {
      const want = percentile(ok, s.p / 100) as number;
      expect(Math.abs((s.ms as number) - want) / want, `p${s.p}`).toBeLessThan(0.01);
    }
    expect(d.spectrum.at(-1)?.ms).toBeGreaterThan(300); // the slow tail reaches p99.99

    // Histogram: 40 log-spaced buckets from min to max that together hold every successful request.
    expect(d.histogram).toHaveLength(40);
    expect(d.histogram[0]?.lo_ms).toBeCloseTo(Math.min(...ok), 9);
    expect(d.histogram.at(-1)?.hi_ms).toBeCloseTo(Math.max(...ok), 9);
    expect(d.histogram.reduce((n, b) => n + b.count, 0)).toBe(ok.length);
    const ratios = d.histogram.map((b) => b.hi_ms / b.lo_ms);
    for (const r of ratios) expect(r).toBeCloseTo(ratios[0] as number, 6);
    const expectInBucket = d.histogram.map((b, i) => ok.filter((v) => v >= b.lo_ms && (i === d.histogram.length - 1 ? v <= b.hi_ms : v < b.hi_ms)).length);
    // Floating-point edges may move a value sitting exactly on an edge to its neighbour: allow one per bucket.
    d.histogram.forEach((b, i) => expect(Math.abs(b.count - (expectInBucket[i] as number))).toBeLessThanOrEqual(1));

    // Timeline: 12 s in 200 ms slices (at most 60), the first 10 (2 s) warm-up, every row of the step in one slice.
    expect(d.bucket_ms).toBe(200);
    expect(d.timeline).toHaveLength(60);
    expect(d.timeline.filter((b) => !b.measured)).toHaveLength(10);
    expect(d.timeline.slice(0, 10).every((b) => !b.measured)).toBe(true);
    expect(d.timeline[9]?.measured).toBe(false);
    expect(d.timeline[10]).toMatchObject({ t_s: 2, measured: true });
    const stepRows = stored.filter((r) => r.level === 8);
    expect(d.timeline.reduce((n, b) => n + b.requests, 0)).toBe(stepRows.length);
    expect(d.timeline.filter((b) => b.measured).reduce((n, b) => n + b.requests, 0)).toBe(inWindow.length);
    // Warm-up is visibly slower; the stall (6–7 s) has no throughput and no percentiles (gaps, not 0).
    const warm = d.timeline.filter((b) => !b.measured);
    const measured = d.timeline.filter((b) => b.measured && (b.t_s < 6 || b.t_s >= 7));
    expect(Math.min(...warm.map((b) => b.p50_ms as number))).toBeGreaterThan(Math.max(...measured.map((b) => b.p50_ms as number)));
    const stall = d.timeline.filter((b) => b.t_s >= 6 && b.t_s < 7);
    expect(stall).toHaveLength(5);
    for (const b of stall) expect(b).toMatchObject({ requests: 0, qps: 0, p50_ms: null, p99_ms: null, measured: true });
    const slice = d.timeline[12] as (typeof d.timeline)[number];
    const sliceOk = stepRows.filter((r) => r.ts >= T0 + slice.t_s * 1000 && r.ts < T0 + slice.t_s * 1000 + 200 && r.status >= 1 && r.status <= 399).map((r) => r.latency);
    expect(slice.ok).toBe(sliceOk.length);
    expect(slice.qps).toBeCloseTo(sliceOk.length / 0.2, 6);
    expect(slice.p50_ms).toBeCloseTo(percentile(sliceOk, 0.5) as number, 6);

    // Status codes: 200, 503 and transport errors (0), counted in the window.
    const count = (s: number) => inWindow.filter((r) => r.status === s).length;
    expect(d.statuses).toEqual([
      { status: 0, count: count(0), ok: false },
      { status: 200, count: count(200), ok: true },
      { status: 503, count: count(503), ok: false },
    ]);
    expect(count(0)).toBeGreaterThan(0);

    // The same rows as the curve's point for that level.
    const detail = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json());
    const point = detail.curve.find((p) => p.level === 8);
    expect(point?.requests).toBe(d.requests);
    expect(point?.p99_ms).toBeCloseTo(d.spectrum.find((s) => s.p === 99)?.ms as number, 9);
  });

  it('agrees with the curve of a run stored by storeSyntheticRun, at every level', async () => {
    const runId = await storeSyntheticRun(api.url, { seed: 11, release: 'v1', levels: [1, 4, 16], seconds: 3 });
    const detail = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json());
    for (const p of detail.curve) {
      const res = await getLevel(runId, p.level);
      expect(res.status).toBe(200);
      const d = LevelDetail.parse(res.body);
      expect(d.requests).toBe(p.requests);
      expect(d.qps).toBeCloseTo(p.qps, 9);
      expect(d.spectrum.find((s) => s.p === 50)?.ms).toBeCloseTo(p.p50_ms as number, 9);
      expect(d.spectrum.find((s) => s.p === 99.9)?.ms).toBeCloseTo(p.p999_ms as number, 9);
      // No warm-up in these steps: every slice is measured; 3 s in 100 ms slices.
      expect(d.timeline).toHaveLength(30);
      expect(d.timeline.every((b) => b.measured)).toBe(true);
      expect(d.statuses).toEqual([{ status: 200, count: p.requests, ok: true }]);
    }
  });

  it('answers 404 for an unknown run or level and 400 naming the field for a bad level', async () => {
    const runId = await createRun(api.url);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { level: 2, started_at: T0, measure_from: T0, ended_at: T0 + 1000 })).status).toBe(200);
    const unknownRun = await getLevel('00000000-0000-4000-8000-00000000beef', 2);
    expect(unknownRun.status).toBe(404);
    expect(unknownRun.body).toMatchObject({ field: 'id' });
    const unknownLevel = await getLevel(runId, 3);
    expect(unknownLevel.status).toBe(404);
    expect(unknownLevel.body).toMatchObject({ field: 'level' });
    for (const bad of ['abc', '-1', '0']) {
      const res = await getLevel(runId, bad);
      expect(res.status, bad).toBe(400);
      expect((res.body as { field?: string }).field, bad).toBe('params.level');
    }
    const spec = (await (await fetch(`${api.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).toContain('/api/v1/runs/{id}/levels/{level}');
    // A step with no requests yet: counts are 0, latencies gaps, no histogram.
    const empty = LevelDetail.parse((await getLevel(runId, 2)).body);
    expect(empty).toMatchObject({ requests: 0, ok: 0, min_ms: null, mean_ms: null, max_ms: null, histogram: [], statuses: [] });
    expect(empty.spectrum.every((s) => s.ms === null)).toBe(true);
  });
});
