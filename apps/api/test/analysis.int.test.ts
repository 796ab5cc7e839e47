import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunAnalysis, RunDetail } from '@kneeboard/contracts';
import { batchOf, createRun, postJson, startTestApi, type TestApi } from './helpers.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

/** Rows a closed loop at concurrency N sees from W workers of S ms: X = min(N, W)/S, latency = max(S, N·S/W). */
function queueingRows(level: number, from: number, seconds: number, workers: number, serviceMs: number) {
  const qps = (Math.min(level, workers) * 1000) / serviceMs;
  const latency = Math.max(serviceMs, (level * serviceMs) / workers);
  const n = Math.round(qps * seconds);
  return Array.from({ length: n }, (_, i) => ({
    level,
    ts: from + ((i + 0.5) * 1000) / qps,
    latency: latency * (0.97 + 0.06 * ((i * 37) % 11) / 10),
    compute: serviceMs,
    queue: latency - serviceMs,
  }));
}

describe('GET /api/v1/runs/{id}/analysis', () => {
  it('finds the knee of a 4-worker server at concurrency 4, and the live snapshot carries the same analysis', async () => {
    const runId = await createRun(api.url);
    const t0 = 1_800_000_000_000;
    for (const [i, level] of [1, 2, 4, 8, 16, 32].entries()) {
      const from = t0 + i * 5_000;
      await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { level, started_at: from, measure_from: from, ended_at: from + 4_000 });
      const res = await postJson(`${api.url}/api/v1/runs/${runId}/events`, batchOf(queueingRows(level, from, 4, 4, 20), `l${level}`));
      expect(res.status).toBe(200);
    }
    const res = await fetch(`${api.url}/api/v1/runs/${runId}/analysis`);
    expect(res.status).toBe(200);
    const analysis = RunAnalysis.parse(await res.json());
    expect(analysis.knee?.level).toBe(4);
    expect(analysis.knee?.reason.length).toBeGreaterThan(20);
    expect(analysis.verdict).toMatch(/concurrency 4/);
    expect(analysis.efficiency.find((e) => e.level === 16)?.efficiency).toBeCloseTo(0.25, 1);

    const detail = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json());
    expect(detail.analysis).toEqual(analysis);
  });

  it('is a 404 for an unknown run', async () => {
    expect((await fetch(`${api.url}/api/v1/runs/6f1c1a64-1b7e-4a53-9a7d-3a6cbb0b0a11/analysis`)).status).toBe(404);
  });
});
