import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(1)>';
const FORMULA = '=HYPERLINK("http://evil.example","click")';

let api: TestApi;
let base: string;
let head: string;
beforeAll(async () => {
  api = await startTestApi();
  base = await storeSyntheticRun(api.url, { seed: 1, service: `svc ${IMG}`, release: SCRIPT, name: FORMULA, parameter: 'c|x<b>' });
  head = await storeSyntheticRun(api.url, { seed: 2, service: `svc ${IMG}`, release: `v2 | ${FORMULA} [x](javascript:alert(1))` });
});
afterAll(async () => api.close());

const get = (path: string) => fetch(`${api.url}${path}`);

describe('hostile run names in every export', () => {
  it('compare.md escapes service, release and parameter: no HTML, no extra table column, no link', async () => {
    const md = await (await get(`/api/v1/compare.md?base=${base}&head=${head}`)).text();
    expect(md).not.toContain('<script');
    expect(md).not.toContain('<img');
    expect(md).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(md).not.toMatch(/(?<!\\)\]\(javascript:/);
    expect(md).toContain("\\[x\\](javascript:alert(1))");
    // The header row and every level row keep exactly 5 columns (level, QPS, p50, p99, flags): a | in the parameter is escaped.
    const rows = md.split('\n').filter((l) => l.startsWith('|'));
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows) expect(row.replace(/\\\|/g, '').split('|').length - 2).toBe(5);
    expect(md).toContain('| c\\|x&lt;b&gt; | QPS | p50 | p99 |');
  });

  it('compare.md takes only an http(s) link base (400 naming web)', async () => {
    for (const web of ['javascript:alert(1)//', 'data:text/html,x', 'file:///etc/passwd']) {
      const res = await get(`/api/v1/compare.md?base=${base}&head=${head}&web=${encodeURIComponent(web)}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { field: string }).field).toBe('querystring.web');
    }
    const ok = await (await get(`/api/v1/compare.md?base=${base}&head=${head}&web=https://kb.example.com/`)).text();
    // The link pins the noise basis its verdict used (noise_asof), so it opens the same verdict.
    expect(ok).toMatch(new RegExp(`\\[Open in Kneeboard\\]\\(https://kb\\.example\\.com/compare\\?base=${base}&head=${head}(&noise_asof=\\d+)?\\)`));
  });

  it('the SVG routes escape the names, and are served with a sandboxing, script-free CSP', async () => {
    for (const path of [`/api/v1/runs/${base}/curve.svg`, `/api/v1/compare.svg?base=${base}&head=${head}`]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      const svg = await res.text();
      expect(svg).not.toContain('<script');
      expect(svg).not.toContain('<img');
      expect(svg).toContain('&lt;script&gt;');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain('sandbox');
      expect(csp).not.toContain('script-src');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('curve.csv keeps the hostile name out of its filename and carries numbers only', async () => {
    const res = await get(`/api/v1/runs/${base}/curve.csv`);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="[\w.@-]+"$/);
    const cells = (await res.text()).trim().split('\n').slice(1).flatMap((l) => l.split(','));
    for (const cell of cells) expect(cell === '' || cell === 'true' || cell === 'false' || Number.isFinite(Number(cell))).toBe(true);
  });

  it('JSON answers carry the names as data, with nosniff and a no-frame policy', async () => {
    const res = await get(`/api/v1/runs/${base}`);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(((await res.json()) as { run: { release: string } }).run.release).toBe(SCRIPT);
  });
});
