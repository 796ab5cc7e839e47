import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CompareResponse } from '@kneeboard/contracts';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

const LEVELS = [1, 2, 4, 8];
const run = (seed: number, release: string, qps = 1) => storeSyntheticRun(api.url, { seed, release, service: 'rel@svc', levels: LEVELS, qpsScale: qps, seconds: 2 });
const q = (text: string) => encodeURIComponent(text);

describe('compare by release: release:SERVICE@RELEASE', () => {
  let v1: string[] = [];
  let v2: string[] = [];
  beforeAll(async () => {
    v1 = [await run(1, 'v1'), await run(2, 'v1'), await run(3, 'v1')];
    v2 = [await run(4, 'v2', 0.8), await run(5, 'v2', 0.8)];
  }, 120_000);

  it('takes every finished run of each release as a group, in JSON, Markdown and SVG', async () => {
    const res = await fetch(`${api.url}/api/v1/compare?base=${q('release:rel@svc@v1')}&head=${q('release:rel@svc@v2')}`);
    expect(res.status).toBe(200);
    const report = CompareResponse.parse(await res.json());
    expect(report.base_runs.map((r) => r.id).sort()).toEqual([...v1].sort());
    expect(report.heads[0]?.runs.map((r) => r.id).sort()).toEqual([...v2].sort());
    expect(report.heads[0]?.noise.basis).toBe('repeats');
    expect(report.heads[0]?.noise.base_runs).toBe(3);

    // The same groups given as ids give the same numbers.
    const byIds = CompareResponse.parse(await (await fetch(`${api.url}/api/v1/compare?base=${report.base_runs.map((r) => r.id).join(',')}&head=${report.heads[0]!.runs.map((r) => r.id).join(',')}`)).json());
    expect(byIds.heads[0]?.overall).toEqual(report.heads[0]?.overall);

    const md = await (await fetch(`${api.url}/api/v1/compare.md?base=${q('release:rel@svc@v1')}&head=${q('release:rel@svc@v2')}&web=http://kb.example`)).text();
    expect(md).toContain('v2 ×2 vs v1 ×3');
    // The link keeps the release form, so it follows the release's newest runs.
    expect(md).toContain('compare?base=release%3Arel%40svc%40v1&head=release%3Arel%40svc%40v2');
    const svg = await fetch(`${api.url}/api/v1/compare.svg?base=${q('release:rel@svc@v1')}&head=${v2[0]}`);
    expect(svg.status).toBe(200);
    expect(await svg.text()).toContain('<svg');
  });

  it('answers 404 naming an unknown release, 400 naming a side written wrongly', async () => {
    const unknown = await fetch(`${api.url}/api/v1/compare?base=${q('release:rel@svc@v9')}&head=${v1[0]}`);
    expect(unknown.status).toBe(404);
    const body = ApiError.parse(await unknown.json());
    expect(body.field).toBe('base');
    expect(body.message).toContain('"v9"');
    expect(body.message).toContain('"rel@svc"');
    const unknownHead = await fetch(`${api.url}/api/v1/compare.md?base=${v1[0]}&head=${v2[0]}&head=${q('release:nope@v1')}`);
    expect(unknownHead.status).toBe(404);
    expect(ApiError.parse(await unknownHead.json()).field).toBe('head[1]');

    const bad = await fetch(`${api.url}/api/v1/compare?base=${q('release:rel-svc-v1')}&head=${v1[0]}`);
    expect(bad.status).toBe(400);
    const badBody = ApiError.parse(await bad.json());
    expect(badBody.field).toBe('querystring.base');
    expect(badBody.message).toContain('release:SERVICE@RELEASE');
  });
});
