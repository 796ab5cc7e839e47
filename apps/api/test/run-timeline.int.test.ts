import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TIMELINE_POINTS, RunTimeline } from '@kneeboard/contracts';
import { batchOf, createRun, percentile, postJson, prng, startTestApi, type TestApi } from './helpers.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

const T0 = 1_800_000_000_000;

interface Row {
  level: number;
  ts: number;
  latency: number;
  status: number;
}

async function getTimeline(runId: string) {
  const res = await fetch(`${api.url}/api/v1/runs/${runId}/timeline`);
  return { status: res.status, body: (await res.json()) as unknown };
}

async function store(steps: { level: number; started_at: number; measure_from: number; ended_at: number }[], rows: Row[]): Promise<string> {
  const runId = await createRun(api.url);
  for (const step of steps) {
    const res = await postJson(`${api.url}/api/v1/runs/${runId}/steps`, step);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  for (let i = 0; i < rows.length; i += 4_000) expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, batchOf(rows.slice(i, i + 4_000), `b${i}`))).status).toBe(200);
  return runId;
}

describe('GET /api/v1/runs/{id}/timeline', () => {
  it('answers each wall-clock second with its requests, errors and p50/p99 over every level, and the steps', async () => {
    // Two steps of 6 s (1 s warm-up each), a stall in second 3 of the first, 3% 503s.
    const steps = [
      { level: 4, started_at: T0, measure_from: T0 + 1_000, ended_at: T0 + 6_000 },
      { level: 8, started_at: T0 + 6_000, measure_from: T0 + 7_000, ended_at: T0 + 12_000 },
    ];
    const rand = prng(11);
    const rows: Row[] = [];
    for (const s of steps) {
      for (let k = 0; k < 3_000; k++) {
        const ts = s.started_at + rand() * 6_000;
        if (s.level === 4 && ts >= T0 + 3_000 && ts < T0 + 4_000) continue;
        rows.push({ level: s.level, ts, latency: 5 * s.level * (0.5 + rand()), status: rand() < 0.03 ? 503 : 200 });
      }
    }
    const runId = await store(steps, rows);
    const res = await getTimeline(runId);
    expect(res.status).toBe(200);
    const t = RunTimeline.parse(res.body);
    expect(t.bucket_s).toBe(1);
    expect(t.points).toHaveLength(12);
    expect(t.steps.map((s) => [s.level, s.started_at, s.measure_from, s.ended_at])).toEqual(steps.map((s) => [s.level, s.started_at, s.measure_from, s.ended_at]));
    for (const [i, p] of t.points.entries()) {
      const second = rows.filter((r) => Math.floor(r.ts / 1000) * 1000 === p.t_ms);
      const ok = second.filter((r) => r.status === 200).map((r) => r.latency);
      expect(p.t_ms).toBe(T0 + i * 1000);
      expect(p.requests, `second ${i}`).toBe(second.length);
      expect(p.ok).toBe(ok.length);
      expect(p.errors).toBe(second.length - ok.length);
      expect(p.rps).toBe(second.length);
      if (ok.length === 0) {
        expect(p.p50_ms).toBeNull();
        expect(p.p99_ms).toBeNull();
      } else {
        // DDSketch at 0.5% relative accuracy, against the exact percentile of the same requests.
        expect(Math.abs((p.p50_ms as number) / (percentile(ok, 0.5) as number) - 1)).toBeLessThan(0.02);
        expect(Math.abs((p.p99_ms as number) / (percentile(ok, 0.99) as number) - 1)).toBeLessThan(0.02);
      }
    }
    expect(t.points[3]).toMatchObject({ requests: 0, ok: 0, errors: 0, p50_ms: null, p99_ms: null }); // the stall is a gap
    expect(t.points.reduce((n, p) => n + p.requests, 0)).toBe(rows.length);
  });

  it(`reads a run longer than ${MAX_TIMELINE_POINTS} s in wider buckets that still add up`, async () => {
    const seconds = 2_500;
    const steps = [{ level: 2, started_at: T0, measure_from: T0 + 1_000, ended_at: T0 + seconds * 1000 }];
    const rows: Row[] = [];
    for (let s = 0; s < seconds; s += 1) for (let k = 0; k < (s % 7) + 1; k++) rows.push({ level: 2, ts: T0 + s * 1000 + k * 10, latency: 3, status: k === 0 && s % 5 === 0 ? 500 : 200 });
    const runId = await store(steps, rows);
    const t = RunTimeline.parse((await getTimeline(runId)).body);
    expect(t.bucket_s).toBe(3);
    expect(t.points.length).toBe(Math.ceil(seconds / 3));
    expect(t.points.length).toBeLessThanOrEqual(MAX_TIMELINE_POINTS);
    for (const [i, p] of t.points.entries()) {
      const inBucket = rows.filter((r) => r.ts >= p.t_ms && r.ts < p.t_ms + 3000);
      expect(p.t_ms).toBe(T0 + i * 3000);
      expect(p.requests).toBe(inBucket.length);
      expect(p.errors).toBe(inBucket.filter((r) => r.status !== 200).length);
      expect(p.rps).toBeCloseTo(inBucket.length / 3, 9);
    }
  });

  it('answers an empty timeline for a run with no request yet, 404 for an unknown run and 400 naming a bad id', async () => {
    const runId = await createRun(api.url);
    const empty = RunTimeline.parse((await getTimeline(runId)).body);
    expect(empty.points).toEqual([]);
    expect((await getTimeline('7d0c6c1e-0000-4000-8000-000000000000')).status).toBe(404);
    const bad = await getTimeline('nope');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('id');
  });
});
