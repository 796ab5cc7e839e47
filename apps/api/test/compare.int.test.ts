import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CompareResponse } from '@kneeboard/contracts';
import { formatChangeWithInterval, formatLevel, formatMs, formatQps } from '@kneeboard/contracts/figures';
import { createRun, postJson, startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

const LEVELS = [1, 2, 4, 8, 16];

const syntheticRun = (seed: number, release: string, scale: { qps?: number; latency?: number } = {}) =>
  storeSyntheticRun(api.url, { seed, release, service: 'compare-svc', levels: LEVELS, qpsScale: scale.qps, latencyScale: scale.latency });

async function compare(base: string, heads: string[], extra = ''): Promise<CompareResponse> {
  const qs = `base=${base}${heads.map((h) => `&head=${h}`).join('')}${extra}`;
  const res = await fetch(`${api.url}/api/v1/compare?${qs}`);
  expect(res.status).toBe(200);
  return CompareResponse.parse(await res.json());
}

describe('GET /api/v1/compare', () => {
  it('calls a known shift (−20% QPS, +25% latency) a regression at every level, from raw samples', async () => {
    const base = await syntheticRun(1, 'v1.0.0');
    const head = await syntheticRun(2, 'v1.1.0', { qps: 0.8, latency: 1.25 });
    const report = await compare(base, [head]);
    expect(report.settings.samples).toBe('exact'); // small runs: a random sample of the stored values
    const [h] = report.heads;
    expect(h?.levels.map((l) => l.level)).toEqual(LEVELS);
    for (const l of h?.levels ?? []) {
      expect(l.qps.verdict).toBe('regression');
      expect(l.p50_ms.verdict).toBe('regression');
      expect(l.qps.change as number).toBeCloseTo(-0.2, 1);
      expect(l.p50_ms.change as number).toBeCloseTo(0.25, 1);
      expect(l.qps.ci_low as number).toBeLessThanOrEqual(l.qps.change as number);
      expect(l.p50_ms.ci_low as number).toBeLessThan(l.p50_ms.ci_high as number);
    }
    expect(h?.overall.verdict).toBe('regression');
    expect(h?.overall.knee.base).toBe(4);
    expect(h?.overall.p99_at_base_knee.level).toBe(4);
    expect(h?.overall.summary).toMatch(/^v1\.1\.0 vs v1\.0\.0: max throughput −\d+%/);

    const reverse = await compare(head, [base]);
    expect(reverse.heads[0]?.overall.verdict).toBe('improvement');
  });

  it('gives no significant change for runs from the same distribution at least 95% of the time', async () => {
    // 101 runs of one distribution, each compared with the next: 100 trials.
    const trials = 100;
    let previous = await syntheticRun(1000, 'same-0');
    let quiet = 0;
    for (let t = 1; t <= trials; t++) {
      const next = await syntheticRun(1000 + t, `same-${t}`);
      if ((await compare(previous, [next])).heads[0]?.overall.verdict === 'no significant change') quiet++;
      previous = next;
    }
    expect(quiet).toBeGreaterThanOrEqual(95);
  }, 180_000);

  it('compares several heads at once, and renders Markdown and an SVG of the overlay', async () => {
    const base = await syntheticRun(11, 'r1');
    const same = await syntheticRun(12, 'r2');
    const faster = await syntheticRun(13, 'r3', { qps: 1.3, latency: 0.75 });
    const report = await compare(base, [same, faster]);
    expect(report.heads.map((h) => h.overall.verdict)).toEqual(['no significant change', 'improvement']);

    const md = await (await fetch(`${api.url}/api/v1/compare.md?base=${base}&head=${faster}&web=http://kb.example`)).text();
    expect(md).toContain('### compare-svc: r3 vs r1 — improvement');
    expect(md).toContain('| concurrency | QPS | p50 | p99 |');
    expect(md.match(/^\| (1|2|4|8|16) \|/gm)).toHaveLength(5);
    // Every figure in a row is the shared formatting's text, the same the web page and the CLI print.
    const at4 = report.heads[1]!.levels.find((l) => l.level === 4)!;
    const row4 = md.split('\n').find((line) => line.startsWith(`| ${formatLevel(4)} |`))!;
    expect(row4).toContain(`| ${formatQps(at4.qps.base)} → ${formatQps(at4.qps.head)} (${formatChangeWithInterval(at4.qps.change, at4.qps.ci_low, at4.qps.ci_high)})`);
    expect(row4).toContain(`| ${formatMs(at4.p50_ms.base)} ms → ${formatMs(at4.p50_ms.head)} ms (${formatChangeWithInterval(at4.p50_ms.change, at4.p50_ms.ci_low, at4.p50_ms.ci_high)})`);
    expect(row4).toMatch(/\(\+\d+(\.\d)?% \[\+\d+(\.\d+)?%…\+\d+(\.\d+)?%\]\)/);
    // The link pins the noise basis the answer used, so it reproduces this verdict later.
    expect(md).toMatch(new RegExp(`\\(http://kb\\.example/compare\\?base=${base}&head=${faster}&noise_asof=\\d+\\)`));
    const view = `/compare?base=${base}&head=${faster}&y=log`;
    const withView = await (await fetch(`${api.url}/api/v1/compare.md?base=${base}&head=${faster}&web=http://kb.example&view=${encodeURIComponent(view)}`)).text();
    expect(withView).toContain(`[Open in Kneeboard](http://kb.example${view})`);

    const svgRes = await fetch(`${api.url}/api/v1/compare.svg?base=${base}&head=${same}&head=${faster}`);
    expect(svgRes.headers.get('content-type')).toContain('image/svg+xml');
    const svg = await svgRes.text();
    expect(svg).toContain('r1 (base)');
    expect(svg.match(/data-metric="qps"/g)).toHaveLength(3);
  });

  it('rejects bad queries with a 400 or 404 naming the field', async () => {
    const base = await syntheticRun(21, 'x1');
    const missing = '6f1c1a64-1b7e-4a53-9a7d-3a6cbb0b0a11';
    const notFound = await fetch(`${api.url}/api/v1/compare?base=${missing}&head=${base}`);
    expect(notFound.status).toBe(404);
    expect(ApiError.parse(await notFound.json()).field).toBe('base');
    const tooMany = await fetch(`${api.url}/api/v1/compare?base=${base}${'&head='.concat(base).repeat(8)}`);
    expect(tooMany.status).toBe(400);
    expect(ApiError.parse(await tooMany.json()).field).toBe('querystring.head');
    const noHead = await fetch(`${api.url}/api/v1/compare?base=${base}`);
    expect(ApiError.parse(await noHead.json()).field).toBe('querystring.head');
  });
});

describe('exports, releases, labels and short links', () => {
  it("serves a run's curve as CSV and SVG", async () => {
    const runId = await syntheticRun(31, 'csv');
    const csv = await (await fetch(`${api.url}/api/v1/runs/${runId}/curve.csv`)).text();
    const lines = csv.trim().split('\n');
    expect(lines[0]).toMatch(/^level,requests,errors,qps,window_s,mean_ms,p50_ms/);
    expect(lines).toHaveLength(1 + LEVELS.length);
    expect(lines[1]?.split(',')[0]).toBe('1');
    const svg = await (await fetch(`${api.url}/api/v1/runs/${runId}/curve.svg`)).text();
    expect(svg).toContain('knee · 4');

    // The embed can match a view: only p99, levels 4–16, a log latency axis.
    const view = await (await fetch(`${api.url}/api/v1/runs/${runId}/curve.svg?metrics=p99&levels=4-16&y=log`)).text();
    expect(view).toContain('Latency: p99');
    expect(view).toContain('latency (ms, log)');
    expect(view.match(/<circle/g)).toHaveLength(2 * 3);
    expect(view).not.toContain('data-metric="p50_ms"');
    const bad = await fetch(`${api.url}/api/v1/runs/${runId}/curve.svg?metrics=p42`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { field: string }).field).toMatch(/^querystring\.metrics/);
  });

  it('lists a service by release, oldest release first, and keeps labels and notes', async () => {
    const service = 'release-order';
    const ids: string[] = [];
    for (const release of ['v1', 'v2', 'v1', 'v3']) ids.push(await createRun(api.url, { service, release }));
    const patch = await fetch(`${api.url}/api/v1/runs/${ids[1]}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ labels: ['candidate'], note: 'Carrier pool resized: expect the plateau gone.' }),
    });
    expect(patch.status).toBe(200);
    const res = (await (await fetch(`${api.url}/api/v1/services/${service}/releases`)).json()) as { releases: Array<{ release: string; runs: Array<{ id: string; note: string; labels: string[] }> }> };
    expect(res.releases.map((r) => r.release)).toEqual(['v1', 'v2', 'v3']);
    expect(res.releases[0]?.runs).toHaveLength(2);
    expect(res.releases[1]?.runs[0]).toMatchObject({ id: ids[1], labels: ['candidate'], note: 'Carrier pool resized: expect the plateau gone.' });
    const services = (await (await fetch(`${api.url}/api/v1/services`)).json()) as { services: Array<{ service: string; runs: number; releases: number }> };
    expect(services.services.find((s) => s.service === service)).toMatchObject({ runs: 4, releases: 3 });

    const empty = await fetch(`${api.url}/api/v1/runs/${ids[1]}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(empty.status).toBe(400);
  });

  it('stores a short link and resolves it; refuses a link that leaves the app', async () => {
    const path = '/compare?base=a&head=b&scale=log&metrics=p50,p99';
    const created = await postJson(`${api.url}/api/v1/links`, { path });
    expect(created.status).toBe(201);
    const { code } = created.body as { code: string };
    expect(code).toMatch(/^[0-9A-Za-z]{8}$/);
    const resolved = (await (await fetch(`${api.url}/api/v1/links/${code}`)).json()) as { path: string };
    expect(resolved.path).toBe(path);
    expect((await fetch(`${api.url}/api/v1/links/ZZZZZZZZ`)).status).toBe(404);
    const evil = await postJson(`${api.url}/api/v1/links`, { path: '//evil.example/x' });
    expect(evil.status).toBe(400);
    expect(ApiError.parse(evil.body).field).toBe('path');
  });
});
