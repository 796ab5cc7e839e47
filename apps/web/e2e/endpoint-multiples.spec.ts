/**
 * The run page's small multiples: a card per endpoint on shared axes, in the order they give out
 * (the one that saturates first first and outlined), each knee marked, each card selecting that
 * endpoint's curve in the selector; two columns on a phone without widening it; axe clean.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatViolations, runAxe } from './axe.ts';
import { FIXTURE_IDS } from './fixture-data.ts';
import { LONG_NAME, NAMED_RUN_ID, namedRun } from './fixture-names.ts';
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
/** The fixture's own endpoint analysis: which gives out first and each name's knee. */
const analysis = namedRun(Date.now()).detail.endpoints!;
const knee = (name: string) => analysis.endpoints.find((e) => e.name === name)!.knee_level;

describe('each endpoint’s curve on the run page (small multiples)', () => {
  it('draws a card per endpoint on the same axes, the one that gives out first first and outlined, knees marked; a card picks its endpoint', async () => {
    const { page, errors } = await stack.newPage({ width: 1440, height: 1000 });
    await page.goto(`${stack.web.url}/runs/${NAMED_RUN_ID}`);
    const grid = page.getByTestId('endpoint-multiples');
    await grid.waitFor();
    expect(analysis.saturates_first).toBe('cart');
    const cards = grid.locator('li.multiple');
    const names = await cards.evaluateAll((els) => els.map((el) => el.getAttribute('data-name')));
    // cart gives out first; then by each one's own knee, the knee-less last.
    expect(names[0]).toBe('cart');
    expect([...names].sort()).toEqual(['cart', 'search', LONG_NAME].sort());
    const rest = names.slice(1).map((n) => knee(n!) ?? Infinity);
    expect(rest).toEqual([...rest].sort((a, b) => a - b));
    expect(await grid.locator('li.multiple-first').count()).toBe(1);
    expect(await grid.locator('li.multiple-first').getAttribute('data-name')).toBe('cart');
    expect(await grid.locator('li.multiple-first .endpoint-flag').textContent()).toBe('gives out first');
    // A knee line in exactly the cards whose endpoint has a knee.
    for (const n of names) {
      const card = grid.locator(`li.multiple[data-name="${n}"]`);
      expect(await card.getByTestId('multiple-knee').count(), n!).toBe(knee(n!) === null ? 0 : 1);
      expect(await card.locator('.multiple-meta').textContent()).toContain(knee(n!) === null ? 'no knee' : `knee ${knee(n!)}`);
    }
    // Shared axes: every card prints the same tick labels.
    const ticks = await cards.evaluateAll((els) => els.map((el) => [...el.querySelectorAll('.multiple-tick')].map((t) => t.textContent).join('|')));
    expect(new Set(ticks).size).toBe(1);
    // Each chart says what it shows to a screen reader.
    expect(await grid.locator('li[data-name="cart"] svg').getAttribute('aria-label')).toMatch(/^cart: .* req\/s .*; knee at concurrency \d+$/);

    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('run page with small multiples', axe.blocking)).toEqual([]);
    await grid.scrollIntoViewIfNeeded();
    await grid.screenshot({ path: `${SCREENSHOT_DIR}/endpoint-multiples-1440.png` });

    // The exports carry the endpoints: a per-endpoint CSV and, in the Markdown, the Endpoints section.
    await page.getByTestId('export-menu').locator('summary').click();
    const markdown = await page.getByTestId('embed-markdown').inputValue();
    const [, endpointsPart] = markdown.split('\n\n**Endpoints.** ');
    expect(endpointsPart).toContain(analysis.summary.slice(0, 20));
    expect(endpointsPart).toContain('| cart · saturates first');
    expect(await page.getByTestId('export-link').evaluateAll((els) => els.map((el) => el.getAttribute('href')))).toContain(`/api/v1/runs/${NAMED_RUN_ID}/names.csv`);
    await page.getByTestId('export-menu').locator('summary').click();

    // A card selects its endpoint: the URL, the selector and the curve follow.
    await grid.locator('li[data-name="search"] a.multiple-link').click();
    await expect.poll(() => pathOf(page)).toBe(`/runs/${NAMED_RUN_ID}?name=search`);
    await expect.poll(() => page.getByTestId('endpoint-select').inputValue()).toBe('search');
    await expect.poll(() => page.locator(qpsCell(8)).textContent()).toBe('93.0');
    expect(await grid.locator('li[data-name="search"]').getAttribute('aria-current')).toBe('true');

    // A run without names has none of it: its Markdown is the image alone, its exports as before.
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}`);
    await page.locator(qpsCell(8)).waitFor();
    expect(await page.getByTestId('endpoint-multiples').count()).toBe(0);
    await page.getByTestId('export-menu').locator('summary').click();
    expect(await page.getByTestId('embed-markdown').inputValue()).toMatch(/^\[!\[[^\n]*\)\]\([^\n]*\)$/);
    expect((await page.getByTestId('export-link').evaluateAll((els) => els.map((el) => el.getAttribute('href')))).filter((h) => h?.includes('names.csv'))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('fits a phone: two cards a row, long names cut, nothing wider than 390 px, axe clean', async () => {
    const { page, errors } = await stack.newPage({ width: 390, height: 844 });
    await page.goto(`${stack.web.url}/runs/${NAMED_RUN_ID}`);
    const grid = page.getByTestId('endpoint-multiples');
    await grid.waitFor();
    const boxes = await grid.locator('li.multiple').evaluateAll((els) => els.map((el) => el.getBoundingClientRect()).map((r) => ({ top: r.top, left: r.left, width: r.width })));
    expect(boxes).toHaveLength(3);
    expect(boxes[0]!.top).toBe(boxes[1]!.top);
    expect(boxes[1]!.left).toBeGreaterThan(boxes[0]!.left);
    expect(boxes[2]!.top).toBeGreaterThan(boxes[0]!.top);
    const long = grid.locator(`li.multiple .endpoint-name[title="${LONG_NAME}"]`);
    expect(await long.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    const o = await overflow(page);
    expect(o.scrollWidth, o.culprits.join('\n')).toBeLessThanOrEqual(390);
    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('small multiples on a phone', axe.blocking)).toEqual([]);
    await grid.scrollIntoViewIfNeeded();
    await grid.screenshot({ path: `${SCREENSHOT_DIR}/endpoint-multiples-390.png` });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
