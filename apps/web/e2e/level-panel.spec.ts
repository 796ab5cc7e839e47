import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMs } from '@kneeboard/contracts/figures';
import { formatCount } from '../src/lib/format.ts';
import { FIXTURE_IDS } from './fixture-data.ts';
import { RELEASE_IDS as R } from './fixture-releases.ts';
import { levelDetailFor } from './fixture-level-detail.ts';
import { SCREENSHOT_DIR, startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ live: false, releases: true });
});

afterAll(async () => {
  await stack?.close();
});

const runOf = (id: string) => stack.api.runs.find((d) => d.run.id === id)!;

describe('inside a level (run page)', () => {
  it('opens from the curve table with its numbers, spectrum, histogram and the step over time with the warm-up shaded', async () => {
    const seed = runOf(FIXTURE_IDS.seed);
    const want = levelDetailFor(seed, 8)!;
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}`);
    await page.locator('[data-testid="curve-table"] tr[data-level="8"] [data-testid="open-level"]').click();

    const panel = page.getByTestId('level-panel');
    await panel.getByTestId('level-latency-table').waitFor();
    expect(await panel.locator('h2#level-panel-title').textContent()).toBe('Inside concurrency 8');
    await expect.poll(() => new URL(page.url()).searchParams.get('level')).toBe('8');
    expect(await page.locator('[data-testid="curve-table"] tr[data-level="8"]').getAttribute('class')).toContain('selected');

    // The window's numbers: the same request count as the curve's row, min/mean/max of the rows.
    expect(want.requests).toBe(seed.curve.find((p) => p.level === 8)?.requests);
    expect(await panel.getByTestId('level-requests').textContent()).toBe(formatCount(want.requests));
    expect(await panel.getByTestId('level-min').textContent()).toBe(formatMs(want.min_ms));
    expect(await panel.getByTestId('level-mean').textContent()).toBe(formatMs(want.mean_ms));
    expect(await panel.getByTestId('level-max').textContent()).toBe(formatMs(want.max_ms));
    const statusRows = panel.locator('[data-testid="level-status-table"] tbody tr');
    expect(await statusRows.count()).toBe(1);
    expect(await statusRows.first().getAttribute('data-status')).toBe('200');

    // Spectrum: one point per percentile (p0 … p99.99) on the nines axis, whose ticks name the nines.
    const spectrum = page.getByTestId('level-spectrum');
    expect(await spectrum.locator('.recharts-line-dots circle').count()).toBe(want.spectrum.length);
    const ticks = await spectrum.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
    expect(ticks).toEqual(['p0', 'p90', 'p99', 'p99.9', 'p99.99']);
    // Higher percentile, higher on the chart: the dots' y falls (SVG y grows downwards) left to right.
    const ys = await spectrum.locator('.recharts-line-dots circle').evaluateAll((els) => els.map((e) => Number(e.getAttribute('cy'))));
    for (let i = 1; i < ys.length; i++) expect(ys[i]).toBeLessThanOrEqual(ys[i - 1] as number);

    // Histogram: a bar for every non-empty bucket of 40.
    expect(want.histogram).toHaveLength(40);
    const nonEmpty = want.histogram.filter((b) => b.count > 0).length;
    expect(await page.locator('[data-testid="level-histogram"] .recharts-bar-rectangle path').count()).toBe(nonEmpty);

    // Over time: the 2 s warm-up is shaded in both time charts, and the throughput line spans the step.
    expect(want.timeline.filter((b) => !b.measured).length).toBeGreaterThan(0);
    for (const id of ['level-timeline-qps', 'level-timeline-latency']) {
      const area = page.locator(`[data-testid="${id}"] .recharts-reference-area`);
      expect(await area.count(), id).toBe(1);
      expect(await page.locator(`[data-testid="${id}"]`).textContent()).toContain('warm-up');
    }
    expect(await page.locator('[data-testid="level-timeline-qps"] .recharts-line path.recharts-curve').count()).toBe(1);
    expect(await page.locator('[data-testid="level-timeline-latency"] .recharts-line path.recharts-curve').count()).toBe(2);

    await panel.scrollIntoViewIfNeeded();
    await page.mouse.move(2, 2); // no tooltip over the charts in the picture
    await panel.screenshot({ path: `${SCREENSHOT_DIR}/level-panel.png` });
    await stack.screenshot(page, 'run-page-level');

    // A second click on the level closes it, and the URL forgets it.
    await page.locator('[data-testid="curve-table"] tr[data-level="8"] [data-testid="open-level"]').click();
    await panel.waitFor({ state: 'detached' });
    await expect.poll(() => new URL(page.url()).searchParams.get('level')).toBe(null);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens from ?level=N in the first render, with transport errors and 503s in the status breakdown', async () => {
    const limited = runOf(FIXTURE_IDS.generatorLimited);
    const want = levelDetailFor(limited, 128)!;
    expect(want.errors).toBe(61);
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    // No JavaScript: the server's HTML alone has the panel and its numbers.
    const html = await (await fetch(`${stack.web.url}/runs/${FIXTURE_IDS.generatorLimited}?level=128`)).text();
    expect(html).toContain('Inside concurrency 128');
    expect(html).toContain('transport error');

    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.generatorLimited}?level=128`);
    const rows = page.locator('[data-testid="level-status-table"] tbody tr');
    await rows.first().waitFor();
    const got = await rows.evaluateAll((els) => els.map((e) => [e.getAttribute('data-status'), e.querySelectorAll('td')[1]?.textContent]));
    expect(got).toEqual(want.statuses.map((s) => [String(s.status), formatCount(s.count)]));
    expect(got.map((g) => g[0])).toEqual(['0', '200', '503']);
    await page.getByTestId('level-close').click();
    await page.getByTestId('level-panel').waitFor({ state: 'detached' });
    await expect.poll(() => new URL(page.url()).searchParams.get('level')).toBe(null);

    // A level the run does not have says so instead of drawing nothing.
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.generatorLimited}?level=3`);
    expect(await page.getByTestId('level-panel').textContent()).toContain('This run has no concurrency 3 level.');
    expect(errors.filter((e) => !e.includes('404'))).toEqual([]);
    await page.close();
  });
});

describe('inside a level (compare page)', () => {
  it('overlays the base and head spectra at a chosen level, with each run\'s window statistics', async () => {
    // crowkis: small runs (the fixture makes up every request of a level, so not fusillade's millions).
    const base = runOf(R.crowkisBefore);
    const head = runOf(R.crowkisFix);
    const level = 8;
    const want = [levelDetailFor(base, level)!, levelDetailFor(head, level)!];
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/compare?base=${R.crowkisBefore}&head=${R.crowkisFix}`);
    await page.locator(`[data-testid="compare-open-level"][data-level="${level}"]`).click();
    const table = page.getByTestId('compare-level-table');
    await table.waitFor();
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(2);
    for (let i = 0; i < 2; i++) {
      const cells = await rows.nth(i).locator('td').allTextContents();
      expect(cells[1]).toBe(formatMs(want[i]!.min_ms));
      expect(cells[3]).toBe(formatMs(want[i]!.spectrum.find((s) => s.p === 50)?.ms));
      expect(cells[8]).toBe(formatCount(want[i]!.requests));
    }
    // Two spectra, the base dashed, each with a point per percentile.
    const lines = page.locator('[data-testid="compare-level-spectrum"] .recharts-line path.recharts-curve');
    expect(await lines.count()).toBe(2);
    expect(await lines.first().getAttribute('stroke-dasharray')).toBe('7 4');
    expect(await page.locator('[data-testid="compare-level-spectrum"] .recharts-line-dots circle').count()).toBe(2 * want[0]!.spectrum.length);
    await page.mouse.move(2, 2);
    await page.getByTestId('compare-level-panel').screenshot({ path: `${SCREENSHOT_DIR}/compare-level-panel.png` });
    expect(errors).toEqual([]);
    await page.close();
  });
});
