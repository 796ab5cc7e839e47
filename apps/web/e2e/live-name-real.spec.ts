/**
 * One endpoint of a running mix, watched live with nothing standing in: the real API on the
 * embedded ClickHouse, the built web app and its same-origin proxy, Chromium. The test writes the
 * run's events itself (no sweep, so nothing waits on time): the page opened on one request name —
 * a name that is also markup, percent-encoded on its way — streams that name's snapshots
 * (`/live?name=`), and its curve gains the next level with that name's requests only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, postJson, startServerProcess, type ServerProcess } from '@kneeboard/api/testing';
import { endpointPath, ENDPOINTS, RunDetail } from '@kneeboard/contracts';
import { launchChromium } from './browser.ts';
import { startNextApp, type NextApp } from './next-app.ts';

const NAME = 'GET /cart?id=<img src=x onerror="document.title=\'pwned\'">&q=50%';
/** Requests per level and name: under 1,000, so the table shows them as they are. */
const COUNTS: Record<number, Record<string, number>> = { 1: { search: 300, [NAME]: 120 }, 2: { search: 500, [NAME]: 210 } };
const WINDOW_MS = 3_000;

const dataDir = mkdtempSync(path.join(tmpdir(), 'kb-web-live-name-'));
let api: ServerProcess;
let web: NextApp;
let browser: Browser;

beforeAll(async () => {
  api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
  web = await startNextApp({ apiUrl: api.url });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A level's step and its requests, each name with its own latency. */
async function postLevel(runId: string, level: number, from: number): Promise<void> {
  const names = Object.entries(COUNTS[level]!).flatMap(([name, n]) => Array<string>(n).fill(name));
  const step = await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level, started_at: from, measure_from: from, ended_at: from + WINDOW_MS });
  expect(step.status).toBe(200);
  const batch = {
    batch_id: `level-${level}`,
    agent_id: 'e2e-agent',
    level: names.map(() => level),
    ts_ms: names.map((_, k) => from + ((k + 0.5) * WINDOW_MS) / names.length),
    latency_ms: names.map((n, k) => (n === NAME ? 30 : 5) * level + (k % 5)),
    compute_ms: names.map(() => null),
    queue_ms: names.map(() => null),
    status: names.map(() => 200),
    name: names,
  };
  expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postEvents, { id: runId })}`, batch)).body).toEqual({ accepted: names.length, duplicate: false });
}

describe("a running mix's endpoint, watched live on the real stack", () => {
  it("streams that name's curve and gains its next level, the name shown as text", async () => {
    const runId = await createRun(api.url, { service: 'storefront', release: 'v1.0.0' });
    const t0 = Date.now() - 60_000;
    await postLevel(runId, 1, t0);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    const streams: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname.endsWith('/live')) streams.push(req.url());
    });
    await page.goto(`${web.url}/runs/${runId}?name=${encodeURIComponent(NAME)}`);
    const mode = () => page.getByTestId('live-indicator').getAttribute('data-mode');
    await expect.poll(mode, { timeout: 30_000 }).toBe('stream');
    // The stream was asked for the page's name, exactly (the browser's URL decodes to it).
    expect(streams.map((u) => new URL(u).searchParams.get('name'))).toContain(NAME);
    const requestsAt = (level: number) => page.locator(`[data-testid="curve-table"] tr[data-level="${level}"] td:nth-last-child(2)`).textContent();
    expect(await requestsAt(1)).toBe(String(COUNTS[1]![NAME]));
    expect(await page.getByTestId('endpoint-select').inputValue()).toBe(NAME);

    // The next level arrives: the page on the name draws it with the name's requests, not the run's.
    await postLevel(runId, 2, t0 + 5_000);
    await expect.poll(() => page.locator('[data-testid="qps-chart"] circle.kb-dot').count(), { timeout: 30_000 }).toBe(2);
    await expect.poll(() => requestsAt(2), { timeout: 30_000 }).toBe(String(COUNTS[2]![NAME]));
    const named = RunDetail.parse(await (await fetch(`${api.url}${endpointPath(ENDPOINTS.getRun, { id: runId }, { name: NAME })}`)).json());
    expect(named.curve.map((p) => p.requests)).toEqual([COUNTS[1]![NAME], COUNTS[2]![NAME]]);
    expect(await mode()).toBe('stream');
    expect(await page.evaluate(() => document.title)).not.toContain('pwned');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
