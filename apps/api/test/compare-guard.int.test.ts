import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CompareResponse } from '@kneeboard/contracts';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

// No grace period: a finished run is final at once, so its comparisons may be cached.
let api: TestApi;
let base: string;
let head: string;
beforeAll(async () => {
  api = await startTestApi({ ingest: { lateDataGraceMs: 0 }, limits: { compareConcurrency: 1, compareQueue: 1, compareMaxRuns: 4 } });
  base = await storeSyntheticRun(api.url, { seed: 11, release: 'v1', service: 'guard-svc' });
  head = await storeSyntheticRun(api.url, { seed: 12, release: 'v2', service: 'guard-svc', latencyScale: 1.2 });
}, 120_000);
afterAll(async () => api.close());

const get = (qs: string) => fetch(`${api.url}/api/v1/compare?${qs}`);

describe('comparisons: bounded, shared, cached', () => {
  it('refuses beyond one running and one waiting with 429, Retry-After and the limits named; the rest succeed', async () => {
    // Eight different comparisons (min_effect differs) at once.
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => get(`base=${base}&head=${head}&min_effect=0.0${i + 1}`)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    // The first computes, one waits; those arriving meanwhile are refused at once.
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(4);
    for (const res of answers.filter((r) => r.status === 429)) {
      expect(res.headers.get('retry-after')).toBe('5');
      const body = ApiError.parse(await res.json());
      expect(body.message).toContain('KNEEBOARD_COMPARE_CONCURRENCY=1');
      expect(body.message).toContain('KNEEBOARD_COMPARE_QUEUE=1');
    }
    for (const res of answers.filter((r) => r.status === 200)) CompareResponse.parse(await res.json());
    const ready = (await (await fetch(`${api.url}/readyz`)).json()) as { load: { compare_running: number; compare_waiting: number } };
    expect([ready.load.compare_running, ready.load.compare_waiting]).toEqual([0, 0]);
  });

  it('computes a comparison of finished runs once: the same query, however spelled, is answered from the cache', async () => {
    const first = await get(`base=${base}&head=${head}&min_effect=0.3`);
    expect(first.headers.get('x-kneeboard-compare')).toBe('computed');
    const again = await get(`base=${base.toUpperCase()}&head=${head.toUpperCase()}&min_effect=0.30`);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-kneeboard-compare')).toBe('cached');
    expect(await again.json()).toEqual(await first.json());
    // The Markdown and SVG views of the same comparison reuse it too.
    const md = await fetch(`${api.url}/api/v1/compare.md?base=${base}&head=${head}&min_effect=0.3`);
    expect(md.headers.get('x-kneeboard-compare')).toBe('cached');
  });

  it('identical comparisons arriving together share one computation', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => get(`base=${base}&head=${head}&min_effect=0.4`)));
    const sources = answers.map((r) => r.headers.get('x-kneeboard-compare'));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(sources.filter((s) => s === 'computed')).toHaveLength(1);
  });

  it('caps the runs in one comparison: 400 naming KNEEBOARD_COMPARE_MAX_RUNS', async () => {
    const ids = Array.from({ length: 5 }, () => randomUUID());
    const res = await get(`base=${ids[0]},${ids[1]}&head=${ids[2]},${ids[3]}&head=${ids[4]}`);
    expect(res.status).toBe(400);
    const body = ApiError.parse(await res.json());
    expect(body.field).toBe('querystring.head');
    expect(body.message).toContain('5 runs in one comparison; at most 4 (KNEEBOARD_COMPARE_MAX_RUNS)');
  });

  it('forgets a cached comparison when one of its runs is deleted', async () => {
    const other = await storeSyntheticRun(api.url, { seed: 13, release: 'v3', service: 'guard-svc' });
    expect((await get(`base=${base}&head=${other}`)).status).toBe(200);
    expect((await get(`base=${base}&head=${other}`)).headers.get('x-kneeboard-compare')).toBe('cached');
    expect((await fetch(`${api.url}/api/v1/runs/${other}`, { method: 'DELETE' })).status).toBeLessThan(300);
    expect((await get(`base=${base}&head=${other}`)).status).toBe(404);
  }, 60_000);

  it('a new finished run of the service (new run-to-run history) invalidates cached comparisons of that service', async () => {
    expect((await get(`base=${base}&head=${head}&min_effect=0.5`)).headers.get('x-kneeboard-compare')).toBe('computed');
    expect((await get(`base=${base}&head=${head}&min_effect=0.5`)).headers.get('x-kneeboard-compare')).toBe('cached');
    await storeSyntheticRun(api.url, { seed: 14, release: 'v1', service: 'guard-svc' });
    expect((await get(`base=${base}&head=${head}&min_effect=0.5`)).headers.get('x-kneeboard-compare')).toBe('computed');
  }, 60_000);
});
