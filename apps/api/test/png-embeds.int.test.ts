import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@kneeboard/contracts';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';
import { pngSize } from '../testing/png-size.ts';

let api: TestApi;
let base: string;
let head: string;
beforeAll(async () => {
  api = await startTestApi();
  base = await storeSyntheticRun(api.url, { seed: 11, service: 'png', release: '<script>alert(1)</script>', seconds: 1 });
  head = await storeSyntheticRun(api.url, { seed: 12, service: 'png', release: '<img src=x onerror=alert(1)>', seconds: 1 });
}, 120_000);
afterAll(async () => api.close());

async function svgSize(path: string): Promise<{ width: number; height: number }> {
  const svg = await (await fetch(`${api.url}${path}`)).text();
  const m = /<svg[^>]*\swidth="(\d+)"\s+height="(\d+)"/.exec(svg);
  if (!m) throw new Error('no size in the SVG');
  return { width: Number(m[1]), height: Number(m[2]) };
}

describe('PNG embeds', () => {
  it('rasterises the run curve SVG at its size × scale (2 by default)', async () => {
    const res = await fetch(`${api.url}/api/v1/runs/${base}.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await res.arrayBuffer());
    const svg = await svgSize(`/api/v1/runs/${base}/curve.svg`);
    expect(pngSize(png)).toEqual({ width: svg.width * 2, height: svg.height * 2 });
    // A drawing, not a blank page: a chart compresses to several kilobytes at least.
    expect(png.length).toBeGreaterThan(5_000);
    const one = Buffer.from(await (await fetch(`${api.url}/api/v1/runs/${base}.png?scale=1&metrics=p99&y=log`)).arrayBuffer());
    expect(pngSize(one)).toEqual(svg);
  });

  it('rasterises the comparison overlay', async () => {
    const res = await fetch(`${api.url}/api/v1/compare.png?base=${base}&head=${head}`);
    expect(res.status).toBe(200);
    const svg = await svgSize(`/api/v1/compare.svg?base=${base}&head=${head}`);
    expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: svg.width * 2, height: svg.height * 2 });
  });

  it('answers 400 naming the field for a bad scale, 404 for an unknown run', async () => {
    const bad = await fetch(`${api.url}/api/v1/runs/${base}.png?scale=9`);
    expect(bad.status).toBe(400);
    expect(ApiError.parse(await bad.json()).field).toBe('querystring.scale');
    const missing = await fetch(`${api.url}/api/v1/runs/00000000-0000-4000-8000-000000000000.png`);
    expect(missing.status).toBe(404);
  });
});
