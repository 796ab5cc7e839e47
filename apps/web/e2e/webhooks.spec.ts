/**
 * A service's webhooks, managed in the browser against the real API (embedded ClickHouse) and a
 * real receiver on 127.0.0.1: added with the form, listed without its URL path or secret, tested
 * with the button (the receiver gets a signed body), removed; no overflow at phone width.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, storeSyntheticRun, type ServerProcess } from '@kneeboard/api/testing';
import { WebhookNotification } from '@kneeboard/contracts';
import { launchChromium } from './browser.ts';
import { startNextApp, type NextApp } from './next-app.ts';
import { overflow } from './overflow.ts';
import { SCREENSHOT_DIR } from './stack.ts';

const SERVICE = 'checkout';
const SECRET = 'webhook-secret-for-the-e2e-0123';

const dataDir = mkdtempSync(path.join(tmpdir(), 'kb-web-webhooks-'));
let api: ServerProcess;
let web: NextApp;
let browser: Browser;
let receiver: Server;
let receiverUrl = '';
const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // The receiver is on 127.0.0.1: webhooks post to public addresses only unless told otherwise.
  api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir, KNEEBOARD_WEBHOOK_ALLOW: 'loopback' });
  await storeSyntheticRun(api.url, { seed: 7, service: SERVICE, release: 'v1', levels: [1, 2, 4], seconds: 2 });
  web = await startNextApp({ apiUrl: api.url });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await api?.stop();
  await new Promise((r) => receiver?.close(r));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('webhooks on the service page', () => {
  it('adds one, lists it without its path or secret, sends a test the receiver gets signed, removes it', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${web.url}/services/${SERVICE}`);
    const section = page.getByTestId('webhooks');
    await section.scrollIntoViewIfNeeded();
    expect(await section.textContent()).toContain('None yet.');

    await page.getByTestId('webhook-url').fill(`${receiverUrl}/hooks/T123/secret-part`);
    await page.getByTestId('webhook-secret').fill(SECRET);
    await page.getByTestId('webhook-add').click();
    const hook = page.getByTestId('webhook');
    await hook.waitFor();
    expect(await hook.locator('code').textContent()).toBe(`${receiverUrl}/…`);
    const html = await page.content();
    expect(html).not.toContain('secret-part');
    expect(html).not.toContain(SECRET);

    await page.getByTestId('webhook-test').click();
    await page.getByTestId('webhook-test-result').waitFor();
    expect(await page.getByTestId('webhook-test-result').textContent()).toBe('delivered (HTTP 204)');
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe('/hooks/T123/secret-part');
    expect(received[0]!.headers['x-kneeboard-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(WebhookNotification.parse(JSON.parse(received[0]!.body)).event).toBe('test');
    // The delivery log shows the attempt once the page is read again.
    await page.reload();
    await page.getByTestId('webhook-deliveries').waitFor();
    expect(await page.getByTestId('webhook-deliveries').textContent()).toContain('HTTP 204');
    await section.scrollIntoViewIfNeeded();
    await section.screenshot({ path: path.join(SCREENSHOT_DIR, 'webhooks.png') });

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${web.url}/services/${SERVICE}`);
    await phone.getByTestId('webhook').waitFor();
    const o = await overflow(phone);
    expect(o.culprits).toEqual([]);
    await phone.close();

    await page.getByTestId('webhook-remove').click();
    await page.getByTestId('webhook').waitFor({ state: 'detached' });
    expect(await section.textContent()).toContain('None yet.');
    await page.close();
  });
});
