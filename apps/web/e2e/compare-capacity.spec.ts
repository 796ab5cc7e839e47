/**
 * Capacity and cost on the comparison, against the real API (embedded ClickHouse): two synthetic
 * 4-worker × 20 ms sweeps (p99 ≈ 36 ms up to c = 4, ≈ 72 ms at 8), the head serving 1.1× the
 * QPS at the same latencies, each with a constant CPU series (1.0 cores on the base, 1.31 on the
 * head). With no SLO the page shows the cost sentences and no capacity; a refused clause is named
 * and changes nothing; `p99<=50ms` goes to the URL and each verdict banner states the capacity
 * change (+10%, single runs: no interval); a reload shows the same; the review's verdict says it
 * too; axe clean, no overflow at 390 px.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startServerProcess, storeSyntheticRun, type ServerProcess } from '@kneeboard/api/testing';
import { formatViolations, runAxe } from './axe.ts';
import { launchChromium } from './browser.ts';
import { startNextApp, type NextApp } from './next-app.ts';
import { overflow } from './overflow.ts';
import { SCREENSHOT_DIR } from './stack.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'kb-web-compare-capacity-'));
let api: ServerProcess;
let web: NextApp;
let browser: Browser;
let base: string;
let head: string;

/** A constant CPU rate over every second of each of the run's steps, as an agent posts it. */
async function postCpu(runId: string, cores: number): Promise<void> {
  const detail = (await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json()) as { steps: Array<{ level: number; started_at: number; ended_at: number }> };
  for (const step of detail.steps) {
    const points = [];
    for (let s = Math.ceil(step.started_at / 1000); s <= Math.floor(step.ended_at / 1000); s++) points.push({ metric: 'cpu', fn: 'rate', second: s, value: cores });
    const res = await postJson(`${api.url}/api/v1/runs/${runId}/server-metrics`, { level: step.level, source: 'metrics-url', cores_available: 4, points });
    if (res.status !== 200) throw new Error(`server metrics refused: ${JSON.stringify(res.body)}`);
  }
}

beforeAll(async () => {
  api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
  const common = { service: 'capacity-compare', levels: [1, 2, 4, 8, 16], workers: 4, serviceMs: 20, seconds: 12 };
  base = await storeSyntheticRun(api.url, { ...common, seed: 41, release: 'v1' });
  head = await storeSyntheticRun(api.url, { ...common, seed: 42, release: 'v2', qpsScale: 1.1 });
  await postCpu(base, 1);
  await postCpu(head, 1.31);
  web = await startNextApp({ apiUrl: api.url });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

// Single runs: the sentence says there is no interval from repeats (the range is the brackets').
const CAPACITY = /^Capacity: v2 serves \+10% \[[^\]]+\] within p99<=50ms: [\d,.]+ against [\d,.]+ req\/s \(1 base and 1 head run; no interval: single run — the range the brackets allow\)$/;
const capacityText = (page: Page) => page.getByTestId('verdict-capacity').first().textContent();

describe('capacity and cost on the comparison', () => {
  it('sets an SLO on the compare page, keeps it in the URL, states the capacity change; a reload and the review show the same', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${web.url}/compare?base=${base}&head=${head}`);
    await page.getByTestId('verdict-banner').waitFor();
    // No SLO yet: no capacity line; the cost of each level is there (both runs read CPU).
    expect(await page.getByTestId('verdict-capacity').count()).toBe(0);
    const cost = page.getByTestId('cost-change');
    expect(await cost.count()).toBe(5);
    expect(await page.locator('[data-testid="cost-change"][data-level="4"]').textContent()).toMatch(/^\+\d+(\.\d)?% \[[^\]]+\] QPS for \+31% CPU at 4$/);

    const input = page.getByTestId('slo-input');
    await input.fill('p98<=50ms');
    await page.getByTestId('slo-apply').click();
    expect(await page.getByTestId('slo-error').textContent()).toContain('SLO clause "p98<=50ms": unknown metric "p98"');
    expect(new URL(page.url()).searchParams.has('slo')).toBe(false);

    await input.fill('p99 <= 50ms');
    await page.getByTestId('slo-apply').click();
    await page.waitForURL((url) => url.searchParams.get('slo') === 'p99<=50ms');
    await expect.poll(() => capacityText(page), { timeout: 30_000 }).toMatch(CAPACITY);
    expect(await input.inputValue()).toBe('p99<=50ms');
    const line = await capacityText(page);

    await page.getByTestId('compare-slo').screenshot({ path: path.join(SCREENSHOT_DIR, 'compare-slo-field.png') });
    await page.getByTestId('verdict-banner').first().screenshot({ path: path.join(SCREENSHOT_DIR, 'compare-capacity-banner.png') });
    await page.getByTestId('cost-changes').first().screenshot({ path: path.join(SCREENSHOT_DIR, 'compare-cost-changes.png') });
    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('comparison with an SLO', axe.blocking)).toEqual([]);

    // The permalink: a fresh page on the URL has the capacity in its first render.
    const permalink = page.url();
    await page.close();
    const again = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await again.goto(permalink);
    await again.getByTestId('verdict-capacity').waitFor();
    expect(await capacityText(again)).toBe(line);
    expect(await again.getByTestId('slo-input').inputValue()).toBe('p99<=50ms');

    // The review's verdict says it too, and lists the cost.
    await again.getByTestId('open-review').click();
    await again.waitForURL((url) => url.pathname === '/review' && url.searchParams.get('slo') === 'p99<=50ms');
    await again.getByTestId('review').waitFor();
    expect(await capacityText(again)).toBe(line);
    expect(await again.getByTestId('cost-change').count()).toBe(5);
    const reviewAxe = await runAxe(again);
    expect(reviewAxe.blocking, formatViolations('review with an SLO', reviewAxe.blocking)).toEqual([]);
    await again.close();

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(permalink);
    await phone.getByTestId('verdict-capacity').waitFor();
    expect((await overflow(phone)).culprits).toEqual([]);
    await phone.close();
  });
});
