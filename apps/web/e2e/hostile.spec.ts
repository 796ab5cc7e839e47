/**
 * A team's server as a hostile page or payload meets it: tokens required, reads by token, the
 * dashboard holding a write token; runs whose names are HTML and spreadsheet formulas. Real API
 * (embedded ClickHouse), the built web app and Chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess, storeSyntheticRun } from '@kneeboard/api/testing';
import { CreatedToken, ListRunsResponse } from '@kneeboard/contracts';
import { launchChromium } from './browser.ts';
import { startNextApp, type NextApp } from './next-app.ts';

const ADMIN = 'e2e-admin-token-0123456789abcdefghij';
const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(2)>';
const FORMULA = '=HYPERLINK("http://evil.example","x")';

const dataDir = mkdtempSync(path.join(tmpdir(), 'kb-web-hostile-'));
let api: ServerProcess;
let web: NextApp;
let browser: Browser;
/** Another site: an empty page on its own origin. */
let evil: Server;
let evilUrl: string;
let base: string;
let head: string;

const asAdmin = (p: string, init: RequestInit = {}) => fetch(`${api.url}${p}`, { ...init, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', ...init.headers } });
const runCount = async () => ListRunsResponse.parse(await (await asAdmin('/api/v1/runs')).json()).runs.length;

beforeAll(async () => {
  // The hostile runs are stored while the API is still open on loopback, then it restarts as a team server.
  const open = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
  base = await storeSyntheticRun(open.url, { seed: 1, service: `svc ${IMG}`, release: SCRIPT, name: FORMULA, seconds: 2 });
  head = await storeSyntheticRun(open.url, { seed: 2, service: `svc ${IMG}`, release: `v2 ${IMG}`, seconds: 2 });
  await open.stop();
  api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir, KNEEBOARD_ADMIN_TOKEN: ADMIN, KNEEBOARD_READ: 'token' });
  const write = CreatedToken.parse(await (await asAdmin('/api/v1/tokens', { method: 'POST', body: JSON.stringify({ name: 'dashboard', scope: 'write' }) })).json());
  web = await startNextApp({ apiUrl: api.url, env: { KNEEBOARD_API_TOKEN: write.token } });
  browser = await launchChromium();
  evil = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>evil</title>'));
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => evil?.close(resolve));
  await web?.close();
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A page that records every dialog (an alert() that ran) and console error (a CSP violation, say). */
async function watchedPage(): Promise<{ page: Page; dialogs: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, dialogs, errors };
}

describe('a team server in the browser', () => {
  it('refuses anonymous reads of the API, while the dashboard reads with its token', async () => {
    expect((await fetch(`${api.url}/api/v1/runs`)).status).toBe(401);
    const res = await fetch(`${web.url}/api/v1/runs`);
    expect(res.status).toBe(200);
  });

  it('shows hostile names as text on the run page, under a nonce CSP, and runs none of them', async () => {
    const { page, dialogs, errors } = await watchedPage();
    const res = await page.goto(`${web.url}/runs/${base}`);
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(res?.headers()['x-content-type-options']).toBe('nosniff');
    expect(res?.headers()['x-frame-options']).toBe('DENY');
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();
    const text = await page.locator('body').innerText();
    expect(text).toContain(SCRIPT);
    expect(text).toContain(IMG);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('opens the server-rendered SVGs on their own without running anything', async () => {
    const { page, dialogs } = await watchedPage();
    for (const p of [`/api/v1/runs/${base}/curve.svg`, `/api/v1/compare.svg?base=${base}&head=${head}`]) {
      const res = await page.goto(`${web.url}${p}`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-type']).toContain('image/svg+xml');
      expect(res?.headers()['content-security-policy']).toContain('sandbox');
      expect((await page.locator('text').allTextContents()).join(' ')).toContain(SCRIPT);
      expect(await page.content()).toContain('&lt;script&gt;');
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(dialogs).toEqual([]);
  });

  it("refuses writes another site's page sends through the user's browser, even with the dashboard's token", async () => {
    const before = await runCount();
    const { page } = await watchedPage();
    await page.goto(evilUrl);
    const statuses = await page.evaluate(async (target) => {
      const body = JSON.stringify({ service: 'csrf', release: 'x' });
      await fetch(`${target}/api/v1/runs`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body });
      await fetch(`${target}/api/v1/runs`, { method: 'POST', mode: 'no-cors' });
      // With a JSON type the browser must ask first; the preflight gets no CORS headers, so it throws.
      const preflighted = await fetch(`${target}/api/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        (r) => r.status,
        () => 'blocked',
      );
      return { preflighted };
    }, web.url);
    expect(statuses.preflighted).toBe('blocked');
    // A plain HTML form post, the oldest cross-site write there is.
    await page.setContent(`<form method="POST" action="${web.url}/api/v1/runs" enctype="text/plain"><input name='{"service":"csrf","release":"' value='x"}'></form>`);
    await Promise.all([page.waitForLoadState('load'), page.evaluate(() => document.forms[0]?.submit())]);
    expect(await page.locator('body').innerText()).toContain('refused');
    expect(await runCount()).toBe(before);
  });
});
