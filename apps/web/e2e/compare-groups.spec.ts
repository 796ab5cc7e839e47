/**
 * Comparing groups of repeated runs (`base=A,B,C&head=D,E`), whole releases
 * (`release:SERVICE@RELEASE`, from the service page's form), drag-to-zoom on the level axis (a
 * permalink, reset from the keyboard) and the level-axis rule shared with the run page. Screenshots
 * at 1280 and 390 px go to e2e/screenshots/.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PALETTE } from '@kneeboard/svg-charts';
import { REPEAT_IDS as R } from './fixture-repeats.ts';
import { overflow } from './overflow.ts';
import { pathOf, startStack, type Stack } from './stack.ts';

let stack: Stack;

// Starting `next start` and Chromium can take over a minute while the other workers build.
beforeAll(async () => {
  stack = await startStack({ live: false, repeats: true });
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

const GROUPS = `/compare?base=${R.v200.join(',')}&head=${R.v210.join(',')}`;
const RELEASES = '/compare?base=release:relay@v2.0.0&head=release:relay@v2.1.0';
const PHONE = { width: 390, height: 844 };
/** Generous: the box runs six workers on two cores. */
const SLOW = { timeout: 30_000 };

async function open(page: Page, path: string, ready = '[data-testid="overlay-qps"] circle.kb-dot'): Promise<void> {
  await page.goto(`${stack.web.url}${path}`);
  await page.locator(ready).first().waitFor(SLOW);
}

const dots = (page: Page, panel: string) =>
  page.locator(`[data-testid="${panel}"] circle.kb-dot`).evaluateAll((els) => [...new Set(els.map((e) => Number(e.getAttribute('data-level'))))].sort((a, b) => a - b));

async function noOverflowAt390(path: string, name: string, ready?: string): Promise<void> {
  const { page, errors } = await stack.newPage(PHONE);
  await open(page, path, ready);
  await stack.screenshot(page, `${name}-390`);
  const o = await overflow(page);
  expect(o.scrollWidth, o.culprits.join('\n')).toBeLessThanOrEqual(PHONE.width);
  expect(errors).toEqual([]);
  await page.close();
}

/** Drags across a chart's plot from one level's dot to another's (the ends snap to levels). */
async function dragAcross(page: Page, panel: string, from: number, to: number): Promise<void> {
  // Mouse coordinates are the viewport's: bring the chart into it first.
  await page.getByTestId(panel).scrollIntoViewIfNeeded();
  const dot = (level: number) => page.locator(`[data-testid="${panel}"] circle.kb-dot[data-level="${level}"]`).first().boundingBox();
  const [a, b] = [await dot(from), await dot(to)];
  if (a === null || b === null) throw new Error(`no dot at ${from} or ${to} in ${panel}`);
  const y = (a.y + b.y) / 2 + 2;
  await page.mouse.move(a.x + a.width / 2, y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, y, { steps: 4 });
  await page.mouse.move(b.x + b.width / 2, y, { steps: 4 });
  // The shaded band shows what will be kept before the button is let go.
  await page.locator(`[data-testid="${panel}"] .kb-zoom-area`).waitFor(SLOW);
  await page.mouse.up();
}

describe('compare groups of repeated runs', () => {
  it('draws every run in its group’s colour, names the groups ×N and says the interval is between-run', async () => {
    const { page, errors } = await stack.newPage();
    await open(page, GROUPS);
    expect(await page.getByTestId('compare-title').textContent()).toBe('relay: v2.1.0 ×2 vs v2.0.0 ×3');
    const rows = page.locator('[data-testid="compared-runs"] tbody tr');
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-group')))).toEqual(['0', '0', '0', '1', '1']);
    expect(await page.locator('[data-testid="compared-runs"] .tag').allTextContents()).toEqual([
      'v2.0.0 · run 1/3',
      'v2.0.0 · run 2/3',
      'v2.0.0 · run 3/3',
      'v2.1.0 · run 1/2',
      'v2.1.0 · run 2/2',
    ]);
    const strokes = await page.locator('[data-testid="overlay-qps"] path.recharts-line-curve').evaluateAll((els) => els.map((e) => [e.getAttribute('stroke')?.toLowerCase(), e.getAttribute('stroke-dasharray')]));
    const [c0, c1] = PALETTE.map((c) => c.toLowerCase());
    expect(strokes).toEqual([[c0, '7 4'], [c0, '7 4'], [c0, '7 4'], [c1, null], [c1, null]]);
    // One legend entry per group, not per run.
    expect(await page.locator('[data-testid="overlay-qps"] [data-testid="run-legend"]').allTextContents()).toEqual(['v2.0.0 ×3base', 'v2.1.0 ×2']);

    const noise = page.getByTestId('verdict-noise');
    expect(await noise.getAttribute('data-basis')).toBe('repeats');
    expect(await noise.getAttribute('data-base-runs')).toBe('3');
    expect(await noise.getAttribute('data-head-runs')).toBe('2');
    expect(await page.getByTestId('verdict-interval').textContent()).toBe('base 3 runs · head 2 runs: between-run intervals (the run-to-run spread of these runs, pooled across levels, on the log scale).');
    // The page keeps the groups in its canonical URL.
    expect(pathOf(page)).toBe(GROUPS);
    await stack.screenshot(page, 'compare-groups-1280');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('one run a side still says it cannot separate a change from run-to-run noise', async () => {
    const { page } = await stack.newPage();
    await open(page, `/compare?base=${R.v200[0]}&head=${R.v210[0]}`);
    expect(await page.getByTestId('verdict-noise').getAttribute('data-basis')).toBe('within-run only');
    expect(await page.getByTestId('verdict-interval').textContent()).toContain('cannot separate a change from run-to-run noise');
    await page.close();
  });

  it('the printable review takes the groups too', async () => {
    const { page, errors } = await stack.newPage();
    await open(page, GROUPS.replace('/compare', '/review'), '[data-testid="verdict-banner"]');
    expect(await page.getByTestId('review-title').textContent()).toBe('relay: v2.1.0 ×2 vs v2.0.0 ×3');
    expect(await page.locator('.review-meta').textContent()).toContain('5 runs in 2 groups (3 · 2)');
    expect(await page.getByTestId('verdict-interval').textContent()).toContain('between-run');
    expect(await page.getByTestId('review-run').count()).toBe(5);
    await page.locator('[data-testid="overlay-qps"] path.recharts-line-curve').nth(4).waitFor(SLOW);
    await stack.screenshot(page, 'review-groups-1280');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('no horizontal overflow at 390 px (compare and review with groups)', async () => {
    await noOverflowAt390(GROUPS, 'compare-groups');
    await noOverflowAt390(GROUPS.replace('/compare', '/review'), 'review-groups', '[data-testid="verdict-banner"]');
  });
});

describe('compare whole releases: release:SERVICE@RELEASE', () => {
  it('the service page’s form compares every finished run of two releases', async () => {
    const { page, errors } = await stack.newPage();
    await open(page, '/services/relay', '[data-testid="release-compare"]');
    // Only releases with a finished run are offered (v2.2.0 has only an aborted one); newest against the one before.
    expect(await page.getByTestId('release-compare-head').locator('option').allTextContents()).toEqual(['v2.1.0 · 2 runs', 'v2.0.0 · 3 runs']);
    expect(await page.getByTestId('release-compare-head').inputValue()).toBe('release:relay@v2.1.0');
    expect(await page.getByTestId('release-compare-base').inputValue()).toBe('release:relay@v2.0.0');
    await stack.screenshot(page, 'service-release-compare-1280');
    await page.getByTestId('release-compare-go').click();
    await page.locator('[data-testid="overlay-qps"] circle.kb-dot').first().waitFor(SLOW);
    expect(await page.getByTestId('compare-title').textContent()).toBe('relay: v2.1.0 ×2 vs v2.0.0 ×3');
    // The view writes its canonical, readable URL: the release form, not the ids it stood for.
    await expect.poll(() => pathOf(page), SLOW).toBe(RELEASES);
    expect(await page.getByTestId('verdict-noise').getAttribute('data-base-runs')).toBe('3');
    expect(await page.locator('[data-testid="compared-runs"] tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')).sort())).toEqual(
      [...R.v200, ...R.v210].sort(),
    );
    await stack.screenshot(page, 'compare-releases-1280');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the review page reads a release link; an unknown release is a 404 that names it; a malformed one is a 404', async () => {
    const { page } = await stack.newPage();
    await open(page, RELEASES.replace('/compare', '/review'), '[data-testid="verdict-banner"]');
    expect(await page.getByTestId('review-title').textContent()).toBe('relay: v2.1.0 ×2 vs v2.0.0 ×3');

    for (const missing of ['release:relay@v9', 'release:relay@v2.2.0']) {
      const res = await page.goto(`${stack.web.url}/compare?base=${missing}&head=release:relay@v2.1.0`);
      expect(res?.status()).toBe(404);
      expect(await page.getByTestId('missing-releases').textContent()).toContain(missing);
    }
    const bad = await page.goto(`${stack.web.url}/compare?base=release:relay&head=${R.v210[0]}`);
    expect(bad?.status()).toBe(404);
    await page.getByTestId('compare-problem').waitFor(SLOW);
    await page.close();
  });

  it('no horizontal overflow at 390 px (service page form, release comparison)', async () => {
    await noOverflowAt390('/services/relay', 'service-release-compare', '[data-testid="release-compare"]');
    await noOverflowAt390(RELEASES, 'compare-releases');
  });
});

describe('zoom on the level axis', () => {
  it('dragging across a comparison chart zooms every chart, into the URL; the link reopens it; Reset zoom works from the keyboard', async () => {
    const { page, errors } = await stack.newPage();
    await open(page, GROUPS);
    expect(await dots(page, 'overlay-qps')).toEqual([1, 2, 4, 8, 16, 32]);
    await dragAcross(page, 'overlay-qps', 2, 16);
    await expect.poll(() => pathOf(page), SLOW).toBe(`${GROUPS}&levels=2-16`);
    await expect.poll(() => dots(page, 'overlay-p99_ms'), SLOW).toEqual([2, 4, 8, 16]);
    expect(await dots(page, 'overlay-qps')).toEqual([2, 4, 8, 16]);
    // The axis rule is decided on every swept level, so zooming does not flip it.
    expect(await page.locator('[data-testid="x-scale"] button[aria-pressed="true"]').textContent()).toBe('log');
    expect(await page.locator('[data-testid="delta-table"] tbody tr').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-level'))))).toEqual([2, 4, 8, 16]);
    await stack.screenshot(page, 'compare-zoomed-1280');

    // A permalink: a fresh page opens the same zoom.
    const other = await stack.newPage();
    await open(other.page, `${GROUPS}&levels=2-16`);
    expect(await dots(other.page, 'overlay-qps')).toEqual([2, 4, 8, 16]);
    await other.page.close();

    // Reset from the keyboard: focus the button and press Enter.
    await page.getByTestId('zoom-reset').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => pathOf(page), SLOW).toBe(GROUPS);
    expect(await dots(page, 'overlay-qps')).toEqual([1, 2, 4, 8, 16, 32]);
    await page.getByTestId('zoom-hint').waitFor(SLOW);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the run page zooms the same way, and a zoomed link keeps the run page’s level axis', async () => {
    const { page, errors } = await stack.newPage();
    const run = `/runs/${R.v200[0]}`;
    await open(page, run, '[data-testid="qps-chart"] circle.kb-dot');
    const xScale = () => page.locator('[data-testid="x-scale"] button[aria-pressed="true"]').textContent();
    expect(await xScale()).toBe('log');
    await dragAcross(page, 'qps-chart', 4, 32);
    await expect.poll(() => pathOf(page), SLOW).toBe(`${run}?levels=4-`);
    await expect.poll(() => dots(page, 'latency-chart'), SLOW).toEqual([4, 8, 16, 32]);
    expect(await xScale()).toBe('log');
    await stack.screenshot(page, 'run-zoomed-1280');
    await page.getByTestId('zoom-reset').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => pathOf(page), SLOW).toBe(run);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('compare and run page draw the same level axis for the same levels (4–8 of a 1…32 sweep: log on both)', async () => {
    const { page } = await stack.newPage();
    await open(page, `/runs/${R.v200[0]}?levels=4-8`, '[data-testid="qps-chart"] circle.kb-dot');
    const runAxis = await page.locator('[data-testid="x-scale"] button[aria-pressed="true"]').textContent();
    await open(page, `${GROUPS}&levels=4-8`);
    const compareAxis = await page.locator('[data-testid="x-scale"] button[aria-pressed="true"]').textContent();
    // The old comparison rule (span of the levels shown > 8×) drew 4–8 linear.
    expect([runAxis, compareAxis]).toEqual(['log', 'log']);
    await page.close();
  });

  it('zoomed compare page: no horizontal overflow at 390 px', async () => {
    await noOverflowAt390(`${GROUPS}&levels=2-16`, 'compare-zoomed');
  });
});
