/**
 * A team server's share links and token page in the browser: the API requires tokens for reads
 * (KNEEBOARD_READ=token) and the dashboard holds none of its own, so every page is read with the
 * token of the person (an admin signed in on /tokens) or of the share link opened. Hostile run names
 * throughout. Real API (embedded ClickHouse), the built web app and Chromium.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngSize, type ServerProcess, startServerProcess, storeSyntheticRun } from '@kneeboard/api/testing';
import { formatViolations, runAxe } from './axe.ts';
import { launchChromium } from './browser.ts';
import { startNextApp, type NextApp } from './next-app.ts';
import { saveScreenshot } from './screenshot.ts';
import { SCREENSHOT_DIR } from './stack.ts';

const ADMIN = 'e2e-share-admin-token-0123456789abcdef';
const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(2)>';

const dataDir = mkdtempSync(path.join(tmpdir(), 'kb-web-share-'));
let api: ServerProcess;
let web: NextApp;
let browser: Browser;
let base: string;
let head: string;
let other: string;
/** The admin's browser: signed in once on /tokens. */
let admin: BrowserContext;

beforeAll(async () => {
  // Generous start-up bounds: the API starts twice on a box shared with other test runs.
  const open = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir }, 90_000);
  base = await storeSyntheticRun(open.url, { seed: 1, service: `svc ${IMG}`, release: SCRIPT, seconds: 2 });
  head = await storeSyntheticRun(open.url, { seed: 2, service: `svc ${IMG}`, release: `v2 ${IMG}`, seconds: 2 });
  other = await storeSyntheticRun(open.url, { seed: 3, service: 'private', release: 'secret-release', seconds: 1 });
  await open.stop();
  api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir, KNEEBOARD_ADMIN_TOKEN: ADMIN, KNEEBOARD_READ: 'token' }, 90_000);
  web = await startNextApp({ apiUrl: api.url });
  browser = await launchChromium();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A page in a fresh browser context (no cookies: a stranger's browser) recording dialogs and errors. */
async function strangerPage(viewport = { width: 1280, height: 900 }): Promise<{ page: Page; dialogs: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { page, dialogs };
}

async function expectAxeClean(page: Page, label: string): Promise<void> {
  const report = await runAxe(page);
  expect(
    report.blocking.map((v) => `${v.impact} ${v.id} ×${v.nodes.length}`),
    formatViolations(label, report.blocking),
  ).toEqual([]);
}

/**
 * Opens a view, again while it says the API did not answer: the dashboard gives a comparison 5 s,
 * which a box running several test suites at once can exceed. This file tests who may see what,
 * not how fast; a refusal (401/403) is never retried.
 */
async function openView(page: Page, url: string): Promise<number | undefined> {
  let status: number | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    status = (await page.goto(url))?.status();
    if ((await page.getByTestId('api-error').count()) === 0) break;
  }
  return status;
}

/** Opens the Read-only link popover on the current page and makes a link expiring after `days`. */
async function makeShareLink(page: Page, days: string): Promise<string> {
  await page.getByTestId('share-link').first().click();
  await page.getByTestId('share-link-expiry').selectOption(days);
  await page.getByTestId('share-link-create').click();
  const url = await page.getByTestId('share-link-url').inputValue({ timeout: 15_000 });
  expect(url).toMatch(/[?&]share=kb_[a-z0-9]+_/);
  return url;
}

describe('token page and share links on a team server', () => {
  it('asks a stranger to sign in (401), refuses a non-admin token, and signs the admin in', async () => {
    const { page } = await strangerPage();
    const home = await page.goto(`${web.url}/`);
    expect(home?.status()).toBe(401);
    await page.getByTestId('sign-in-needed').waitFor();
    await page.goto(`${web.url}/tokens`);
    await page.getByTestId('sign-in-token').fill('kb_nosuchtoken_aaaaaaaaaaaaaaaaaaaaaaaaaaaa');
    await page.getByTestId('sign-in-submit').click();
    expect(await page.getByTestId('sign-in-error').innerText()).toContain('refused');
    await saveScreenshot(page, 'tokens-sign-in');

    const adminPage = await admin.newPage();
    await adminPage.goto(`${web.url}/tokens`);
    await adminPage.getByTestId('sign-in-token').fill(ADMIN);
    await adminPage.getByTestId('sign-in-submit').click();
    await adminPage.getByTestId('tokens-table').waitFor();
    // The session cookie is the server's: httpOnly, SameSite=Strict, invisible to page scripts.
    const cookie = (await admin.cookies()).find((c) => c.name === 'kb_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(await adminPage.evaluate(() => document.cookie)).not.toContain('kb_');
    await adminPage.close();
  });

  it('creates a token, shows its secret once, and revokes it', async () => {
    const page = await admin.newPage();
    await page.goto(`${web.url}/tokens`);
    await page.getByTestId('token-name').fill(`agents ${SCRIPT}`);
    await page.getByTestId('token-scope').selectOption('ingest');
    await page.getByTestId('token-create').click();
    const secret = await page.getByTestId('token-secret').inputValue({ timeout: 15_000 });
    expect(secret).toMatch(/^kb_[a-z0-9]+_/);
    const id = secret.split('_')[1] ?? '';
    const row = page.getByTestId(`token-row-${id}`);
    await row.waitFor();
    expect(await row.innerText()).toContain(SCRIPT);
    await saveScreenshot(page, 'tokens-created');
    await expectAxeClean(page, 'tokens page');
    // The token works against the API for what ingest may do: its own run status read.
    expect((await fetch(`${api.url}/api/v1/runs/${base}`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
    // Reloaded, the page holds no secret any more.
    await page.reload();
    expect(await page.content()).not.toContain(secret.split('_').slice(2).join('_'));
    await page.getByTestId(`token-row-${id}`).getByTestId('token-revoke').click();
    await page.getByTestId(`token-row-${id}`).getByTestId('token-status').filter({ hasText: 'revoked' }).waitFor();
    expect((await fetch(`${api.url}/api/v1/runs/${base}`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
    await page.setViewportSize({ width: 390, height: 844 });
    await saveScreenshot(page, 'tokens-390');
    // The token table scrolls inside its panel; the page itself does not get wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.close();
  }, 90_000);

  it('shares one run read-only: the link opens in a fresh browser, the secret leaves the URL, nothing else can be listed', async () => {
    const adminPage = await admin.newPage();
    await openView(adminPage, `${web.url}/runs/${base}`);
    const link = await makeShareLink(adminPage, '1');
    await saveScreenshot(adminPage, 'share-link-run');
    await adminPage.close();

    // The first answer is a redirect to the same path without the token, never to another site.
    const token = new URL(link).searchParams.get('share') ?? '';
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(303);
    // Next writes a same-origin Location as a path; either way it resolves to this page on this site.
    expect(new URL(first.headers.get('location') ?? '', web.url).href).toBe(`${web.url}/runs/${base}`);
    expect(first.headers.get('set-cookie')).toMatch(/kb_share=.*HttpOnly/i);
    const offsite = await fetch(`${web.url}//evil.example/x?share=${encodeURIComponent(token)}`, { redirect: 'manual' });
    // (Next itself folds the double slash first; either way the browser stays on this site.)
    expect(new URL(offsite.headers.get('location') ?? '', web.url).origin).toBe(web.url);

    const { page, dialogs } = await strangerPage();
    const res = await page.goto(link);
    expect(res?.status()).toBe(200);
    expect(page.url()).not.toContain('share=');
    expect(new URL(page.url()).pathname).toBe(`/runs/${base}`);
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();
    const text = await page.locator('body').innerText();
    expect(text).toContain(SCRIPT);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    await saveScreenshot(page, 'share-run-opened');
    await expectAxeClean(page, 'shared run page');
    // A reader is shown nothing it may not do: no label or note editing, no new links — while the
    // admin, on the same page, has them all.
    await page.getByTestId('run-notes').waitFor();
    for (const id of ['label-input', 'edit-note', 'share', 'share-link', 'compare-releases']) expect(await page.getByTestId(id).count(), id).toBe(0);
    // Nor links to lists it cannot read (they would answer 403): the crumbs and the service are plain text.
    const listLinks = 'a[href="/"], a[href^="/services"], a[href^="/?"]';
    expect(await page.locator(listLinks).count()).toBe(0);
    expect(await page.getByTestId('run-crumbs').innerText()).toContain('Runs / ');
    expect(await page.getByTestId('shared-view').innerText()).toBe('shared link · read-only');
    const adminView = await admin.newPage();
    await openView(adminView, `${web.url}/runs/${base}`);
    for (const id of ['label-input', 'edit-note', 'share', 'share-link', 'compare-releases']) expect(await adminView.getByTestId(id).count(), id).toBe(1);
    expect(await adminView.locator(listLinks).count()).toBeGreaterThanOrEqual(4);
    await adminView.close();

    // The reader cannot list runs or open another run: a clear 403 page, and 403 from the API.
    const list = await page.goto(`${web.url}/`);
    expect(list?.status()).toBe(403);
    expect(await page.getByTestId('share-forbidden').innerText()).toContain('cannot list other runs');
    expect(await page.content()).not.toContain('secret-release');
    await saveScreenshot(page, 'share-run-cannot-list');
    expect((await page.goto(`${web.url}/runs/${other}`))?.status()).toBe(403);
    const apiList = await page.evaluate(async () => (await fetch('/api/v1/runs')).status);
    expect(apiList).toBe(403);

    // The PNG embed of the shared run, through the dashboard's origin with the share cookie…
    const png = await page.request.get(`${web.url}/api/v1/runs/${base}.png`);
    expect(png.status()).toBe(200);
    expect(pngSize(Buffer.from(await png.body())).width).toBeGreaterThan(600);
    const svg = await page.request.get(`${web.url}/api/v1/runs/${base}/curve.svg`);
    expect(svg.status()).toBe(200);
    expect(await svg.text()).toContain('&lt;script&gt;');
    // …and with the token in the URL, as a README or chat embeds it (no cookie, no header).
    const embed = await fetch(`${web.url}/api/v1/runs/${base}.png?share=${encodeURIComponent(token)}`);
    expect(embed.status).toBe(200);
    expect(pngSize(Buffer.from(await embed.arrayBuffer()))).toMatchObject({ width: expect.any(Number) as number });
    expect((await fetch(`${web.url}/api/v1/runs/${other}.png?share=${encodeURIComponent(token)}`)).status).toBe(403);
    expect(dialogs).toEqual([]);
  }, 90_000);

  it('shares a comparison and its printable review; revoking the link shows a clear page', async () => {
    const adminPage = await admin.newPage();
    await openView(adminPage, `${web.url}/review?base=${base}&head=${head}`);
    const link = await makeShareLink(adminPage, '7');
    expect(new URL(link).pathname).toBe('/review');

    const { page, dialogs } = await strangerPage({ width: 390, height: 844 });
    expect(await openView(page, link)).toBe(200);
    expect(page.url()).not.toContain('share=');
    await page.getByTestId('review-title').waitFor();
    expect(await page.getByTestId('review-title').innerText()).toContain(SCRIPT);
    await saveScreenshot(page, 'share-review-390');
    expect(await page.getByTestId('share-link').count()).toBe(0);
    // The comparison view and its PNG embed open with the same link; a third run does not.
    expect(await openView(page, `${web.url}/compare?base=${base}&head=${head}`)).toBe(200);
    await page.getByTestId('compare-title').waitFor();
    for (const id of ['share', 'share-link']) expect(await page.getByTestId(id).count(), id).toBe(0);
    expect(await page.locator('a[href^="/services"]').count()).toBe(0);
    const png = await page.request.get(`${web.url}/api/v1/compare.png?base=${base}&head=${head}`);
    expect(png.status()).toBe(200);
    const body = Buffer.from(await png.body());
    // Kept to look at: the embed as a chat tool or a wiki shows it.
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    writeFileSync(path.join(SCREENSHOT_DIR, 'embed-compare.png'), body);
    const size = pngSize(body);
    expect(size.width).toBeGreaterThan(600);
    expect(size.height).toBeGreaterThan(300);
    expect((await page.goto(`${web.url}/compare?base=${base}&head=${other}`))?.status()).toBe(403);
    expect(dialogs).toEqual([]);

    // The admin revokes it on the token page; the reader's next load says so.
    await adminPage.goto(`${web.url}/tokens`);
    const row = adminPage.locator('tr', { hasText: 'share: review' }).first();
    await row.getByTestId('token-revoke').click();
    await row.getByTestId('token-status').filter({ hasText: 'revoked' }).waitFor();
    await adminPage.close();
    const after = await page.goto(`${web.url}/review?base=${base}&head=${head}`);
    expect(after?.status()).toBe(401);
    expect(await page.getByTestId('share-revoked').innerText()).toContain('revoked or has expired');
    await saveScreenshot(page, 'share-revoked-390');
    await expectAxeClean(page, 'revoked link page');
    // Three server-rendered comparisons and a revocation: slow on a loaded 2-core box, not stuck.
  }, 120_000);
});
