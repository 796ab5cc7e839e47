/**
 * Fixture API + built web app + Chromium, started together and stopped together: what each spec
 * file needs. Screenshots go to e2e/screenshots/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser.ts';
import { startFixtureApi, type FixtureApi, type FixtureApiOptions } from './fixture-api.ts';
import { startNextApp, WEB_DIR, type NextApp } from './next-app.ts';

export const SCREENSHOT_DIR = path.join(WEB_DIR, 'e2e', 'screenshots');

/** The page's path and query string: what a permalink reproduces. */
export const pathOf = (page: Page) => new URL(page.url()).pathname + new URL(page.url()).search;

export interface Stack {
  api: FixtureApi;
  web: NextApp;
  browser: Browser;
  /** A new page at 1280×900 whose console errors are collected in `errors`. */
  newPage(viewport?: { width: number; height: number }): Promise<{ page: Page; errors: string[] }>;
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startStack(options: FixtureApiOptions = {}): Promise<Stack> {
  const api = await startFixtureApi(options);
  let web: NextApp | undefined;
  let browser: Browser | undefined;
  try {
    web = await startNextApp({ apiUrl: api.url });
    browser = await launchChromium();
  } catch (err) {
    await browser?.close();
    await web?.close();
    await api.close();
    throw err;
  }
  const b = browser;
  const w = web;
  return {
    api,
    web: w,
    browser: b,
    async newPage(viewport = { width: 1280, height: 900 }) {
      const page = await b.newPage({ viewport });
      const errors: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(msg.text());
      });
      page.on('pageerror', (err) => errors.push(err.message));
      return { page, errors };
    },
    async screenshot(page, name) {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const file = path.join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await b.close();
      await w.close();
      await api.close();
    },
  };
}
