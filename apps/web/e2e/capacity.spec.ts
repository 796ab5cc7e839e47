/**
 * Capacity under an SLO on the run page, against the real API (embedded ClickHouse): a synthetic
 * 4-worker × 20 ms server (p99 ≈ 36 ms up to c = 4, ≈ 72 ms at 8) judged under `p99<=50ms`. A
 * clause the parser refuses is named and changes nothing; a good one goes to the URL, draws the
 * threshold between the p99 points of c = 4 and 8, marks the capacity at 4 and states it; a reload
 * (the permalink) shows the same; the embed carries `slo=` and the line; axe clean, no overflow at 390 px.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, storeSyntheticRun, type ServerProcess } from '@kneeboard/api/testing';
import { formatViolations, runAxe } from './axe.ts';
import { launchChromium } from './browser.ts';
import { startNextApp, type NextApp } from './next-app.ts';
import { overflow } from './overflow.ts';
import { SCREENSHOT_DIR } from './stack.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'kb-web-capacity-'));
let api: ServerProcess;
let web: NextApp;
let browser: Browser;
let runId: string;

beforeAll(async () => {
  api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
  runId = await storeSyntheticRun(api.url, { seed: 26, service: 'capacity', release: 'v1', levels: [1, 2, 4, 8, 16], workers: 4, serviceMs: 20, seconds: 12 });
  web = await startNextApp({ apiUrl: api.url });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const attr = async (page: Page, selector: string, name: string) => Number(await page.locator(selector).first().getAttribute(name));
const CAPACITY = /^Capacity under p99<=50ms, errors<=1%: [\d,.]+ req\/s at concurrency 4 \(bracket 4–8, crossing ≈ [\d.]+\)$/;

async function expectCapacityDrawn(page: Page) {
  await expect.poll(() => page.getByTestId('capacity-line').textContent(), { timeout: 20_000 }).toMatch(CAPACITY);
  // The threshold sits between the p99 points of c = 4 (under 50 ms: lower on the page) and c = 8.
  const threshold = page.locator('[data-testid="latency-chart"] .kb-slo-threshold[data-slo="p99<=50ms"]');
  await threshold.waitFor();
  expect(await page.locator('[data-testid="latency-chart"] .kb-slo-threshold').count()).toBe(1);
  const ty = await attr(page, '[data-testid="latency-chart"] .kb-slo-threshold line', 'y1');
  const p99At = (level: number) => attr(page, `[data-testid="latency-chart"] .kb-dot[data-series="p99_ms"][data-level="${level}"]`, 'cy');
  expect(await p99At(4)).toBeGreaterThan(ty);
  expect(await p99At(8)).toBeLessThan(ty);
  expect(await threshold.locator('text').textContent()).toBe('SLO p99 ≤ 50 ms');
  // The capacity stands on the throughput point of c = 4.
  const marker = page.locator('[data-testid="qps-chart"] .kb-capacity');
  expect(await marker.getAttribute('data-level')).toBe('4');
  const mx = await attr(page, '[data-testid="qps-chart"] .kb-capacity line', 'x1');
  expect(mx).toBeCloseTo(await attr(page, '[data-testid="qps-chart"] .kb-dot[data-series="qps"][data-level="4"]', 'cx'), 0);
  expect(await page.locator('[data-testid="qps-chart"] .kb-capacity-bracket').count()).toBe(1);
}

describe('capacity under an SLO on the run page', () => {
  it('takes an SLO typed in the page, keeps it in the URL, draws the threshold and the capacity, and a reload shows the same', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${web.url}/runs/${runId}`);
    await page.getByTestId('capacity-none').waitFor();

    const input = page.getByTestId('slo-input');
    await input.fill('p98<=50ms');
    await page.getByTestId('slo-apply').click();
    expect(await page.getByTestId('slo-error').textContent()).toContain('SLO clause "p98<=50ms": unknown metric "p98"');
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect(new URL(page.url()).searchParams.has('slo')).toBe(false);
    expect(await page.locator('.kb-slo-threshold').count()).toBe(0);

    await input.fill('p99 <= 50ms, errors<=1%');
    await page.getByTestId('slo-apply').click();
    await page.waitForURL((url) => url.searchParams.get('slo') === 'p99<=50ms,errors<=1%');
    expect(await page.getByTestId('slo-error').count()).toBe(0);
    await expectCapacityDrawn(page);
    expect(await input.inputValue()).toBe('p99<=50ms,errors<=1%');

    // The embed draws the same SLO, and its Markdown carries the capacity line.
    await page.getByTestId('export-menu').locator('summary').click();
    const markdown = await page.getByTestId('embed-markdown').inputValue();
    expect(markdown).toContain(`/api/v1/runs/${runId}/curve.svg?slo=p99%3C%3D50ms,errors%3C%3D1%25`);
    expect(markdown.split('\n\n')[1]).toMatch(/^Capacity under p99\\<=50ms, errors\\<=1%: [\d,.]+ req\/s at concurrency 4 \\\(bracket 4–8/);
    await page.getByTestId('export-menu').locator('summary').click();

    await page.getByTestId('capacity').screenshot({ path: path.join(SCREENSHOT_DIR, 'capacity-panel.png') });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'capacity-run-page.png'), fullPage: false });
    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('run page with an SLO', axe.blocking)).toEqual([]);

    // The permalink: a fresh page on the URL shows the same SLO, threshold and capacity.
    const permalink = page.url();
    await page.close();
    const again = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await again.goto(permalink);
    await expectCapacityDrawn(again);
    expect(await again.getByTestId('slo-input').inputValue()).toBe('p99<=50ms,errors<=1%');
    await again.close();

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(permalink);
    await expect.poll(() => phone.getByTestId('capacity-line').textContent(), { timeout: 20_000 }).toMatch(CAPACITY);
    await phone.getByTestId('capacity').screenshot({ path: path.join(SCREENSHOT_DIR, 'capacity-panel-390.png') });
    expect((await overflow(phone)).culprits).toEqual([]);
    await phone.close();
  });
});
