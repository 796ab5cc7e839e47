import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PALETTE } from '@kneeboard/svg-charts';
import { RELEASE_IDS as R } from './fixture-releases.ts';
import { startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ live: false, releases: true });
});

afterAll(async () => {
  await stack?.close();
});

/** Seed 004: before (base), after, and k6 on one chart. */
const RUNS = `base=${R.fusilladeBefore}&head=${R.fusilladeAfter}&head=${R.fusilladeK6}`;
/** Not the defaults: p99 only, a log latency axis, linear levels, workers 200 to 1000. */
const PERMALINK = `/compare?${RUNS}&metrics=p99&x=linear&y=log&levels=200-1000`;
const COLOURS = PALETTE.slice(0, 3).map((c) => c.toLowerCase());

interface DrawnLine {
  stroke: string;
  dash: string | null;
}

/** The run lines of one chart panel, in drawing order: their colour and dash. */
async function lines(page: Page, panel: string): Promise<DrawnLine[]> {
  return page
    .locator(`[data-testid="${panel}"] path.recharts-line-curve`)
    .evaluateAll((els) => els.map((e) => ({ stroke: (e.getAttribute('stroke') ?? '').toLowerCase(), dash: e.getAttribute('stroke-dasharray') })));
}

async function dotLevels(page: Page, panel: string, series: string): Promise<number[]> {
  return page.locator(`[data-testid="${panel}"] circle.kb-dot[data-series="${series}"]`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-level'))));
}

/** Everything that makes up the view's state, read from the page. */
async function viewState(page: Page) {
  const panels = await page.locator('[data-testid^="overlay-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
  const checked = async (id: string) => page.getByTestId(id).locator('input').isChecked();
  return {
    panels,
    metrics: { p50: await checked('toggle-p50_ms'), p90: await checked('toggle-p90_ms'), p99: await checked('toggle-p99_ms'), p999: await checked('toggle-p999_ms') },
    x: await page.locator('[data-testid="x-scale"] button[aria-pressed="true"]').textContent(),
    y: await page.locator('[data-testid="y-scale"] button[aria-pressed="true"]').textContent(),
    fit: await checked('toggle-usl'),
    from: await page.getByTestId('level-from').inputValue(),
    to: await page.getByTestId('level-to').inputValue(),
    lines: await lines(page, 'overlay-p99_ms'),
    base: await dotLevels(page, 'overlay-p99_ms', 'run0'),
    head: await dotLevels(page, 'overlay-p99_ms', 'run1'),
  };
}

async function openComparison(page: Page, path: string): Promise<void> {
  await page.goto(`${stack.web.url}${path}`);
  await page.locator('[data-testid="overlay-qps"] circle.kb-dot').first().waitFor();
}

describe('compare view', () => {
  it('opens a permalink in a fresh context with the same series and settings', async () => {
    const { page, errors } = await stack.newPage(); // a new browser context: nothing carried over
    await openComparison(page, PERMALINK);
    const state = await viewState(page);
    expect(state).toEqual({
      panels: ['overlay-qps', 'overlay-p99_ms'],
      metrics: { p50: false, p90: false, p99: true, p999: false },
      x: 'linear',
      y: 'log',
      fit: false,
      from: '200',
      to: '1000',
      // One line per run, in the server SVG's order and colours: the base dashed, heads solid.
      lines: [
        { stroke: COLOURS[0], dash: '7 4' },
        { stroke: COLOURS[1], dash: null },
        { stroke: COLOURS[2], dash: null },
      ],
      base: [200, 500, 1000],
      head: [200, 500, 1000],
    });
    expect(await lines(page, 'overlay-qps')).toEqual(state.lines);

    // The log latency axis: only positive ticks.
    const ticks = await page.locator('[data-testid="overlay-p99_ms"] .recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
    expect(ticks.length).toBeGreaterThan(2);
    expect(ticks).not.toContain('0');

    // The URL stays the canonical permalink; the tables and verdicts follow the same runs and range.
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(PERMALINK);
    expect(await page.getByTestId('compare-title').textContent()).toBe('fusillade: v1.6.2, k6-v0.52.0 vs v1.6.1');
    const banners = page.getByTestId('verdict-banner');
    expect(await banners.count()).toBe(2);
    // Seed 004's v1.6.1 held 17 requests in flight whatever the workers: its agent was the ceiling,
    // so +32% is shown but not called an improvement, and every level says why.
    expect(await banners.first().getAttribute('data-verdict')).toBe('not comparable');
    expect(await banners.first().getByTestId('verdict-summary').textContent()).toMatch(/^v1\.6\.2 vs v1\.6\.1: max throughput \+32%.*not comparable: the agent was the limit/);
    expect(await banners.first().getByTestId('verdict-flags').textContent()).toContain('Not comparable at 50, 200, 500, 1000, 2000');
    expect(await banners.first().getByTestId('verdict-noise').getAttribute('data-basis')).toBe('within-run only');
    const tables = page.getByTestId('delta-table');
    expect(await tables.first().locator('tbody tr').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-level'))))).toEqual([200, 500, 1000]);
    const k6At1000 = tables.nth(1).locator('tr[data-level="1000"]');
    expect(await k6At1000.getByTestId('delta-qps').getAttribute('data-verdict')).toBe('not comparable');
    expect(await k6At1000.getByTestId('level-flag').textContent()).toBe('⚠ not comparable, the agent was the limit in base');
    expect(await tables.nth(1).locator('[data-testid="flag-notes"] li[data-level="1000"]').textContent()).toMatch(
      /workers 1000 not comparable — base: only 17\.8 of 1000 requests were in flight \(1\.8%, Little's law\)/,
    );
    expect(await page.locator('[data-testid="compared-runs"] [data-testid="run-knee"]').allTextContents()).toEqual(['none', 'none', '50']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('draws a level only the head swept as a point on the head alone, and no zero', async () => {
    const { page } = await stack.newPage();
    await openComparison(page, `/compare?base=${R.crowkisBefore}&head=${R.crowkisFix}`);
    expect(await dotLevels(page, 'overlay-p50_ms', 'run0')).toEqual([1, 2, 4, 8, 16]);
    expect(await dotLevels(page, 'overlay-p50_ms', 'run1')).toEqual([1, 2, 4, 8, 16, 32]);
    const row32 = page.locator('[data-testid="delta-table"] tr[data-level="32"]');
    expect(await row32.textContent()).toContain('only in v0.2.3');
    expect(await row32.getByTestId('delta-qps').getAttribute('data-verdict')).toBe('insufficient data');
    // Hovering level 32 lists the base as not measured.
    await page.locator('[data-testid="overlay-p50_ms"] circle.kb-dot[data-series="run1"][data-level="32"]').hover();
    const tip = page.locator('[data-testid="overlay-p50_ms"] [data-testid="chart-tooltip"]');
    await tip.waitFor();
    expect(await tip.textContent()).toMatch(/threads\s*32.*v0\.2\.2\s*not measured.*v0\.2\.3\s*114 ms/);
    await page.close();
  });

  it('keeps every change in the URL, and a Share link opens the same view elsewhere', async () => {
    const { page, errors } = await stack.newPage();
    await openComparison(page, `/compare?${RUNS}`);
    await page.getByTestId('toggle-p90_ms').locator('input').check();
    await page.locator('[data-testid="y-scale"] button', { hasText: 'log' }).click();
    await page.getByTestId('level-to').selectOption('1000');
    await page.getByTestId('toggle-usl').locator('input').check();
    const expected = `/compare?${RUNS}&metrics=p50,p90,p99&y=log&fit=1&levels=-1000`;
    await expect.poll(() => new URL(page.url()).pathname + new URL(page.url()).search).toBe(expected);
    expect(await page.locator('[data-testid="overlay-qps"] path.kb-usl').count()).toBeGreaterThan(0);

    const linksBefore = stack.api.stats().review.linkPosts;
    await page.getByTestId('share').click();
    const shortUrl = await page.getByTestId('share-url').inputValue();
    expect(shortUrl).toMatch(new RegExp(`^${stack.web.url}/s/[0-9A-Za-z]{6,16}$`));
    expect(stack.api.stats().review.linkPosts).toBe(linksBefore + 1);
    const here = await viewState(page);
    await stack.screenshot(page, 'compare-shared');

    const { page: elsewhere } = await stack.newPage();
    await elsewhere.goto(shortUrl);
    await elsewhere.locator('[data-testid="overlay-qps"] circle.kb-dot').first().waitFor();
    expect(new URL(elsewhere.url()).pathname + new URL(elsewhere.url()).search).toBe(expected);
    expect(await viewState(elsewhere)).toEqual(here);
    expect(await elsewhere.locator('[data-testid="overlay-qps"] path.kb-usl').count()).toBe(await page.locator('[data-testid="overlay-qps"] path.kb-usl').count());
    expect(errors).toEqual([]);
    await elsewhere.close();
    await page.close();
  });

  it('answers an unknown short link with a friendly 404', async () => {
    const { page } = await stack.newPage();
    const res = await page.goto(`${stack.web.url}/s/Nope1234`);
    expect(res?.status()).toBe(404);
    expect(await page.getByTestId('link-not-found').textContent()).toContain('This short link leads nowhere');
    await page.close();
  });

  it('answers a malformed comparison link or one naming unknown runs with a 404 that explains, and an empty one with the picker', async () => {
    const { page } = await stack.newPage();
    for (const path of ['/compare?base=not-a-run&head=x', `/compare?base=${R.fusilladeBefore}&head=00000000-0000-4000-8000-00000000dead`, '/review?base=nope']) {
      const res = await page.goto(`${stack.web.url}${path}`);
      expect(res?.status()).toBe(404);
      expect(await page.getByTestId('compare-problem').textContent()).toContain('This comparison cannot be shown');
    }
    const empty = await page.goto(`${stack.web.url}/compare`);
    expect(empty?.status()).toBe(200);
    await page.close();
  });

  it('downloads a chart as SVG and PNG with every series in it', async () => {
    const { page, errors } = await stack.newPage();
    await openComparison(page, PERMALINK);
    const panel = page.getByTestId('overlay-p99_ms');

    const [svgDownload] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('export-svg').click()]);
    expect(svgDownload.suggestedFilename()).toBe('kneeboard-fusillade-v1.6.1-vs-v1.6.2-vs-k6-v0.52.0-p99-latency.svg');
    const svgText = await readFile((await svgDownload.path())!, 'utf8');
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const root = doc.documentElement;
      const paths = [...doc.querySelectorAll('path')].filter((p) => (p.getAttribute('stroke') ?? '').startsWith('#'));
      return {
        root: root.nodeName,
        error: doc.querySelector('parsererror')?.textContent ?? null,
        width: Number(root.getAttribute('width')),
        paths: paths.map((p) => ({ stroke: (p.getAttribute('stroke') ?? '').toLowerCase(), dash: p.getAttribute('stroke-dasharray'), d: (p.getAttribute('d') ?? '').length > 10 })),
        text: [...doc.querySelectorAll('text')].map((t) => t.textContent).join(' | '),
        legend: [...doc.querySelectorAll('.kb-export-legend line')].map((l) => (l.getAttribute('stroke') ?? '').toLowerCase()),
      };
    }, svgText);
    expect(parsed.root).toBe('svg');
    expect(parsed.error).toBeNull();
    expect(parsed.paths).toEqual([
      { stroke: COLOURS[0], dash: '7 4', d: true },
      { stroke: COLOURS[1], dash: null, d: true },
      { stroke: COLOURS[2], dash: null, d: true },
    ]);
    expect(parsed.legend).toEqual(COLOURS);
    expect(parsed.text).toContain('fusillade: v1.6.2, k6-v0.52.0 vs v1.6.1 — p99 latency');
    expect(parsed.text).toContain('v1.6.1 (base)');
    expect(parsed.text).toContain('p99 latency (ms)');

    const [pngDownload] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('export-png').click()]);
    expect(pngDownload.suggestedFilename()).toMatch(/\.png$/);
    const png = await readFile((await pngDownload.path())!);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.length).toBeGreaterThan(15_000);
    const decoded = await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      // Count pixels in the base run's blue: the curves made it into the picture.
      const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      let blue = 0;
      for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i]! - 0x00) < 30 && Math.abs(data[i + 1]! - 0x72) < 30 && Math.abs(data[i + 2]! - 0xb2) < 30) blue++;
      return { width: img.naturalWidth, height: img.naturalHeight, blue };
    }, png.toString('base64'));
    expect(decoded.width).toBe(parsed.width * 2);
    expect(decoded.height).toBeGreaterThan(400);
    expect(decoded.blue).toBeGreaterThan(100);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('copies the comparison as Markdown for a pull request, and offers data and embeds', async () => {
    const { page } = await stack.newPage();
    await openComparison(page, PERMALINK);
    const before = stack.api.stats().review.markdownGets;
    await page.getByTestId('copy-markdown').click();
    const md = await page.getByTestId('markdown-text').inputValue();
    expect(stack.api.stats().review.markdownGets).toBe(before + 1);
    expect(md).toContain('### fusillade: v1.6.2 vs v1.6.1 — not comparable');
    expect(md.split('\n').find((l) => l.startsWith('| 1000 |'))).toMatch(/⚠️.*not comparable: base — only 17\.8 of 1000 requests were in flight/);
    expect(md).toContain(`[Open in Kneeboard](${stack.web.url}/compare?base=${R.fusilladeBefore}`);
    expect(md).toContain(`![latency versus load](${stack.web.url}/api/v1/compare.svg?`);
    await page.getByTestId('markdown-popover').getByRole('button', { name: 'Close' }).click();

    await page.getByTestId('export-menu').locator('summary').click();
    expect(await page.getByTestId('embed-markdown').inputValue()).toBe(
      `[![fusillade: v1.6.2, k6-v0.52.0 vs v1.6.1](${stack.web.url}/api/v1/compare.svg?${RUNS}&metrics=p99&y=log&levels=200-1000)](${stack.web.url}${PERMALINK})`,
    );
    const hrefs = await page.getByTestId('export-link').evaluateAll((els) => els.map((e) => e.getAttribute('href')));
    expect(hrefs).toContain(`/api/v1/runs/${R.fusilladeAfter}/curve.csv`);
    const csv = await page.evaluate(async (href) => (await fetch(href)).text(), `/api/v1/runs/${R.fusilladeAfter}/curve.csv`);
    expect(csv.split('\n')[0]).toMatch(/^level,qps,/);

    const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
    const body = JSON.parse(await readFile((await json.path())!, 'utf8')) as { view: string; comparison: { heads: unknown[] }; runs: unknown[] };
    expect(body.view).toBe(PERMALINK);
    expect(body.comparison.heads.length).toBe(2);
    expect(body.runs.length).toBe(3);
    await page.close();
  });

  it('is the README screenshot: before, after and k6 on one chart', async () => {
    const { page, errors } = await stack.newPage({ width: 1440, height: 900 });
    await openComparison(page, `/compare?${RUNS}&y=log`);
    await page.mouse.move(2, 2);
    await stack.screenshot(page, 'compare');
    expect(errors).toEqual([]);
    await page.close();
  });
});
