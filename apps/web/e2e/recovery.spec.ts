/**
 * The API is not up yet when the first page opens (the demo's first seconds), or goes away under a
 * live run: the page keeps trying on its own, with a visible countdown, and turns into the page —
 * the runs list, the live run — without a reload once the API answers.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './browser.ts';
import { startFixtureApi, type FixtureApi } from './fixture-api.ts';
import { freePort, startNextApp, type NextApp } from './next-app.ts';
import { SCREENSHOT_DIR } from './stack.ts';

let port: number;
let web: NextApp;
let browser: Browser;
let api: FixtureApi | undefined;

beforeAll(async () => {
  port = await freePort();
  web = await startNextApp({ apiUrl: `http://127.0.0.1:${port}` });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await web?.close();
  await api?.close();
});

describe('with the API down', () => {
  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`at ${viewport.width} px: the error page counts down, retries, and becomes the runs list without a reload once the API starts`, async () => {
      const page = await browser.newPage({ viewport });
      await page.goto(`${web.url}/`);
      await page.getByTestId('api-error').waitFor();
      await page.evaluate(() => ((window as unknown as { kbSamePage: boolean }).kbSamePage = true));
      // A countdown, then a try that fails (the API is still down) and a longer wait.
      await expect.poll(() => page.getByTestId('api-retry').textContent(), { timeout: 10_000 }).toMatch(/Trying again in \d+ s/);
      await expect.poll(() => page.getByTestId('api-retry').getAttribute('data-attempt'), { timeout: 15_000 }).not.toBe('0');
      await page.screenshot({ path: `${SCREENSHOT_DIR}/recovery-error-${viewport.width}.png` });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);

      api = await startFixtureApi({ port, live: false });
      // "Try now" instead of the whole backoff: the same retry the countdown ends in.
      await page.getByRole('button', { name: 'Try now' }).click();
      await page.locator('[data-testid="run-row"]').first().waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('api-error').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { kbSamePage?: boolean }).kbSamePage)).toBe(true);
      await page.screenshot({ path: `${SCREENSHOT_DIR}/recovery-list-${viewport.width}.png` });
      await page.close();
      await api.close();
      api = undefined;
    });
  }

  it('retries by itself on the countdown (no click) and shows the list', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${web.url}/`);
    await page.getByTestId('api-error').waitFor();
    await page.evaluate(() => ((window as unknown as { kbSamePage: boolean }).kbSamePage = true));
    api = await startFixtureApi({ port, live: false });
    // The first waits are 1 s, 2 s, 4 s: the list is there well within 20 s with nobody clicking.
    await page.locator('[data-testid="run-row"]').first().waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { kbSamePage?: boolean }).kbSamePage)).toBe(true);
    await page.close();
    await api.close();
    api = undefined;
  });
});

describe('a live run whose stream drops', () => {
  it('counts down while the API is away and goes live again when it is back, without a reload', async () => {
    api = await startFixtureApi({ port, liveStepMs: 1500 });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${web.url}/runs/${api.liveRunId}`);
    const mode = () => page.getByTestId('live-indicator').getAttribute('data-mode');
    await expect.poll(mode, { timeout: 20_000 }).toBe('stream');
    await page.evaluate(() => ((window as unknown as { kbSamePage: boolean }).kbSamePage = true));
    await api.close();
    await expect.poll(mode, { timeout: 20_000 }).toBe('retrying');
    expect(await page.getByTestId('live-indicator').textContent()).toMatch(/trying again in \d+ s/);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/recovery-live-retrying.png` });
    api = await startFixtureApi({ port, liveStepMs: 1500 });
    await expect.poll(mode, { timeout: 40_000 }).toBe('stream');
    expect(await page.evaluate(() => (window as unknown as { kbSamePage?: boolean }).kbSamePage)).toBe(true);
    await page.close();
  });
});
