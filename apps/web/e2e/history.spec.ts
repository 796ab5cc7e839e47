/**
 * A service's history on its page, against the real API (embedded ClickHouse): a series of twelve
 * releases whose peak throughput fell 20% at v7 — one chart per feature, the change point marked
 * and listed, its link opening the comparison across it; no overflow at phone width. And a series of
 * two releases, too few to look for a change point in, said to be so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, storeSyntheticRun, type ServerProcess } from '@kneeboard/api/testing';
import { launchChromium } from './browser.ts';
import { startNextApp, type NextApp } from './next-app.ts';
import { overflow } from './overflow.ts';
import { SCREENSHOT_DIR } from './stack.ts';

const SERVICE = 'search';
const TWO_RELEASES = 'cart';
const dataDir = mkdtempSync(path.join(tmpdir(), 'kb-web-history-'));
let api: ServerProcess;
let web: NextApp;
let browser: Browser;

beforeAll(async () => {
  api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
  // Sequential: a release's place is its first run's creation time.
  for (let i = 0; i < 12; i++) {
    await storeSyntheticRun(api.url, { seed: 50 + i, service: SERVICE, release: `v${i + 1}`, levels: [1, 2, 4, 8], seconds: 3, workers: 4, ...(i >= 6 ? { qpsScale: 0.8, latencyScale: 1.25 } : {}) });
  }
  // Two releases, the second 1.5× the first: too few to look for a change point, and the page must not call that steady.
  for (const [i, release] of ['v1', 'v2'].entries()) {
    await storeSyntheticRun(api.url, { seed: 80 + i, service: TWO_RELEASES, release, levels: [1, 2, 4, 8], seconds: 3, workers: 4, ...(i === 1 ? { qpsScale: 1.5 } : {}) });
  }
  web = await startNextApp({ apiUrl: api.url });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a service history on its page', () => {
  it('draws a chart per feature with the change point at v7, and its link opens the comparison across it', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${web.url}/services/${SERVICE}`);
    const section = page.getByTestId('history-trends');
    await section.waitFor();
    const qps = section.locator('[data-testid="history-chart"][data-feature="peak_qps"]');
    expect(await qps.getAttribute('data-points')).toBe('12');
    expect(await qps.getAttribute('data-changes')).toBe('1');
    expect(await qps.locator('.trend-dot').count()).toBe(12);
    const listed = await page.getByTestId('history-changes').textContent();
    expect(listed).toMatch(/Peak throughput −(19|20|21)% at v7/);
    expect(await page.getByTestId('history-no-change').count()).toBe(0);
    await section.screenshot({ path: path.join(SCREENSHOT_DIR, 'service-history.png') });

    await page.getByTestId('history-changes').getByRole('link').first().click();
    await page.waitForURL(/\/compare\?/);
    const url = new URL(page.url());
    expect([...url.searchParams]).toEqual([
      ['base', `release:${SERVICE}@v6`],
      ['head', `release:${SERVICE}@v7`],
    ]);
    await page.close();

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${web.url}/services/${SERVICE}`);
    await phone.getByTestId('history-trends').waitFor();
    expect((await overflow(phone)).culprits).toEqual([]);
    await phone.close();
  });

  it('says no change point was looked for in a series of two releases, not that it held steady', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${web.url}/services/${TWO_RELEASES}`);
    await page.getByTestId('history-trends').waitFor();
    expect(await page.getByTestId('history-no-change').textContent()).toBe(
      'No change point looked for yet: the search needs 6 releases with a value, and this series has 2. Compare the releases below to see what changed.',
    );
    expect(await page.getByTestId('history-changes').count()).toBe(0);
    await page.close();
  });
});
