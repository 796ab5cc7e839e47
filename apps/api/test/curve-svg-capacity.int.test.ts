import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@kneeboard/contracts';
import { pngSize } from '../testing/png-size.ts';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

/**
 * The embeds carry capacity under `slo=` as the run page states it: the threshold on the latency
 * panel, the capacity line and its bracket on the throughput panel, the capacity sentence. The
 * synthetic 4 × 20 ms server holds p99 ≤ 50 ms up to c = 4 and breaks at 8 (capacity.int.test.ts).
 */
let api: TestApi;
let runId: string;
beforeAll(async () => {
  api = await startTestApi();
  runId = await storeSyntheticRun(api.url, { seed: 26, service: 'svg<cap>', release: 'v1', levels: [1, 2, 4, 8, 16], workers: 4, serviceMs: 20, seconds: 12 });
});
afterAll(async () => api.close());

const SLO = encodeURIComponent('p99<=50ms,errors<=1%');

describe('GET /api/v1/runs/{id}/curve.svg?slo=', () => {
  it('draws the SLO threshold, the capacity and its bracket, and says the capacity; nothing of it without slo=', async () => {
    const res = await fetch(`${api.url}/api/v1/runs/${runId}/curve.svg?slo=${SLO}`);
    expect(res.status).toBe(200);
    const svg = await res.text();
    expect(svg).toMatch(/Capacity under p99&lt;=50ms, errors&lt;=1%: [\d,.]+ req\/s at concurrency 4 \(bracket 4–8, crossing ≈ [\d.]+\)/);
    expect(svg.match(/class="slo-threshold" data-ms="50"/g)).toHaveLength(1);
    expect(svg).toContain('SLO p99 ≤ 50 ms');
    expect(svg).toMatch(/<g class="capacity" data-level="4">/);
    expect(svg).toContain('class="capacity-bracket"');
    expect(svg).toContain('svg&lt;cap&gt;');

    const plain = await (await fetch(`${api.url}/api/v1/runs/${runId}/curve.svg`)).text();
    expect(plain).not.toContain('slo-threshold');
    expect(plain).not.toContain('class="capacity"');
    expect(plain).not.toContain('Capacity under');
  });

  it('refuses a bad SLO with a 400 naming the field and the clause, on the SVG and the PNG', async () => {
    for (const path of ['curve.svg', 'curve.svg?y=log', '']) {
      const url = path === '' ? `${api.url}/api/v1/runs/${runId}.png?slo=p98<=50ms` : `${api.url}/api/v1/runs/${runId}/${path}${path.includes('?') ? '&' : '?'}slo=p98<=50ms`;
      const res = await fetch(url);
      expect(res.status, url).toBe(400);
      const body = ApiError.parse(await res.json());
      expect(body.field).toBe('querystring.slo');
      expect(body.message).toContain('SLO clause "p98<=50ms"');
    }
  });

  it('rasterises the same drawing as PNG', async () => {
    const withSlo = Buffer.from(await (await fetch(`${api.url}/api/v1/runs/${runId}.png?scale=1&slo=${SLO}`)).arrayBuffer());
    const without = Buffer.from(await (await fetch(`${api.url}/api/v1/runs/${runId}.png?scale=1`)).arrayBuffer());
    expect(pngSize(withSlo).width).toBe(pngSize(without).width);
    expect(withSlo.equals(without)).toBe(false);
  });
});
