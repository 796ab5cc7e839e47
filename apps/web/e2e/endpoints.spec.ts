/**
 * A run whose requests carry names: the endpoint selector draws one name's curve (kept in the URL
 * across a reload), the summary says which endpoint saturates first and which dominates p99, long
 * names are cut without widening a phone screen, and a run without names shows none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatViolations, runAxe } from './axe.ts';
import { FIXTURE_IDS } from './fixture-data.ts';
import { LONG_NAME, NAMED_RUN_ID } from './fixture-names.ts';
import { overflow } from './overflow.ts';
import { pathOf, SCREENSHOT_DIR, startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ live: false, named: true });
});

afterAll(async () => {
  await stack?.close();
});

const qpsCell = (level: number) => `[data-testid="curve-table"] tr[data-level="${level}"] td:nth-child(2)`;

describe('endpoints on the run page', () => {
  it('draws the picked endpoint’s curve, keeps it in the URL after a reload, and says which endpoint gives out first', async () => {
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${NAMED_RUN_ID}`);
    const select = page.getByTestId('endpoint-select');
    await select.waitFor();
    // All requests first, then the busiest name first, each with its share.
    const options = await select.locator('option').allTextContents();
    expect(options[0]).toBe('All requests');
    expect(options.slice(1).map((o) => o.split(' · ')[0])).toEqual(['search', 'cart', LONG_NAME]);
    expect(options.slice(1).every((o) => /· \d+(\.\d)?%$/.test(o))).toBe(true);

    const summary = page.getByTestId('endpoints-summary');
    expect(await summary.locator('.endpoints-sentence').textContent()).toMatch(/cart/);
    expect(await summary.locator('tr[data-name="cart"]').textContent()).toContain('saturates first');
    expect(await summary.locator('tr[data-name="cart"]').textContent()).toContain('dominates p99');
    expect(await summary.locator('tr[data-name="search"] .endpoint-flag').count()).toBe(0);

    // The whole run at concurrency 8: 93 + 22 + 15 req/s.
    expect(await page.locator(qpsCell(8)).textContent()).toBe('130');
    const dot = page.locator('[data-testid="qps-chart"] circle.kb-dot[data-level="8"]');
    const wholeY = await dot.getAttribute('cy');

    await select.selectOption('cart');
    await expect.poll(() => pathOf(page)).toBe(`/runs/${NAMED_RUN_ID}?name=cart`);
    await expect.poll(() => page.locator(qpsCell(8)).textContent()).toBe('22.0');
    expect(await page.locator('[data-testid="qps-chart"] circle.kb-dot').count()).toBe(6);
    expect(await dot.getAttribute('cy')).not.toBe(wholeY);
    expect(await summary.locator('tr[data-name="cart"]').getAttribute('aria-current')).toBe('true');

    await page.reload();
    await select.waitFor();
    expect(pathOf(page)).toBe(`/runs/${NAMED_RUN_ID}?name=cart`);
    expect(await select.inputValue()).toBe('cart');
    expect(await page.locator(qpsCell(8)).textContent()).toBe('22.0');

    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('run page with an endpoint picked', axe.blocking)).toEqual([]);

    // Back to the whole run.
    await select.selectOption('');
    await expect.poll(() => pathOf(page)).toBe(`/runs/${NAMED_RUN_ID}`);
    await expect.poll(() => page.locator(qpsCell(8)).textContent()).toBe('130');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('cuts a long name on a phone without widening the page (its whole text in the title), axe clean', async () => {
    const { page, errors } = await stack.newPage({ width: 390, height: 844 });
    await page.goto(`${stack.web.url}/runs/${NAMED_RUN_ID}?name=${encodeURIComponent(LONG_NAME)}`);
    const select = page.getByTestId('endpoint-select');
    await select.waitFor();
    expect(await select.inputValue()).toBe(LONG_NAME);
    expect(await page.locator(qpsCell(8)).textContent()).toBe('15.0');
    const link = page.getByTestId('endpoints-summary').locator('a.endpoint-name', { hasText: LONG_NAME });
    expect(await link.getAttribute('title')).toBe(LONG_NAME);
    expect(await link.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    const o = await overflow(page);
    expect(o.scrollWidth, o.culprits.join('\n')).toBeLessThanOrEqual(390);
    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('run page on a phone with a long endpoint name', axe.blocking)).toEqual([]);
    await page.getByTestId('endpoints').scrollIntoViewIfNeeded();
    await page.getByTestId('endpoints').screenshot({ path: `${SCREENSHOT_DIR}/endpoints-390.png` });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('shows the whole run, saying so, for a name the run does not carry; nothing for a run without names', async () => {
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${NAMED_RUN_ID}?name=gone`);
    await page.getByTestId('endpoint-select').waitFor();
    expect(await page.locator('.endpoint-missing').textContent()).toContain('gone');
    expect(await page.locator(qpsCell(8)).textContent()).toBe('130');
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}`);
    await page.locator(qpsCell(8)).waitFor();
    expect(await page.getByTestId('endpoints').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
