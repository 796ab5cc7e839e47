import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uslThroughput, uslTrust } from '@kneeboard/analysis';
import { RunAnalysis, RunDetail } from '@kneeboard/contracts';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

describe('GET /api/v1/runs/{id}/analysis', () => {
  it('finds the knee of a 4-worker server at concurrency 4, and the live snapshot carries the same analysis', async () => {
    const runId = await storeSyntheticRun(api.url, { seed: 7, release: 'v1', levels: [1, 2, 4, 8, 16, 32], workers: 4, serviceMs: 20, seconds: 4 });
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

  it('sends what the analysis decided about the fit: whether it is trusted, and its throughput at every level', async () => {
    const runId = await storeSyntheticRun(api.url, { seed: 11, release: 'v1', levels: [1, 2, 4, 8, 16, 32], workers: 4, serviceMs: 20, seconds: 4 });
    const detail = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json());
    const fit = detail.analysis.usl;
    if (fit === null) throw new Error('a six-level closed-loop sweep should have a USL fit');
    // The decision is the analysis package's (uslTrust), carried through as it was made. A 4-worker
    // pool is a hard limit the USL cannot follow, so the fit is not trusted and the reason says why.
    const measured = detail.curve.filter((p) => !p.in_progress && p.qps > 0);
    expect(detail.analysis.usl_trusted).toBe(uslTrust(measured, fit, 'concurrency').trusted);
    expect(detail.analysis.usl_trusted).toBe(false);
    expect(detail.analysis.usl_untrusted_reason).toMatch(/^The USL fit /);
    expect(detail.analysis.usl_fitted.map((p) => p.level)).toEqual(detail.curve.map((p) => p.level));
    for (const p of detail.analysis.usl_fitted) expect(p.qps).toBeCloseTo(uslThroughput(p.level, fit), 6);
  });

  it('is a 404 for an unknown run', async () => {
    expect((await fetch(`${api.url}/api/v1/runs/6f1c1a64-1b7e-4a53-9a7d-3a6cbb0b0a11/analysis`)).status).toBe(404);
  });
});
