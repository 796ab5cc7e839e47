/**
 * Per endpoint on the compare page, against the real API (embedded ClickHouse): two runs of one mix
 * of three named endpoints stored through the normal ingest — the head's checkout exactly 40%
 * faster, its search exactly 50% slower, its cart unchanged (each name and level draws the same
 * latencies in both runs, scaled). The page lists each endpoint's verdict under the tables; a pair
 * of runs without names shows no such list; axe clean, no overflow at 390 px.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, postJson, startServerProcess, type ServerProcess } from '@kneeboard/api/testing';
import { prng } from '@kneeboard/analysis/testing';
import { formatViolations, runAxe } from './axe.ts';
import { launchChromium } from './browser.ts';
import { startNextApp, type NextApp } from './next-app.ts';
import { overflow } from './overflow.ts';
import { SCREENSHOT_DIR } from './stack.ts';

const NAMES = ['search', 'cart', 'checkout'] as const;
type Name = (typeof NAMES)[number];
const SERVICE_MS: Record<Name, number> = { search: 4, cart: 12, checkout: 40 };
const SCALE: Record<'base' | 'head', Record<Name, number>> = { base: { search: 1, cart: 1, checkout: 1 }, head: { search: 1.5, cart: 1, checkout: 0.6 } };
const LEVELS = [1, 2, 4];
const WINDOW_MS = 6_000;
const PER_LEVEL = 3_000;
const T0 = Date.UTC(2026, 10, 1, 12);

const dataDir = mkdtempSync(path.join(tmpdir(), 'kb-web-compare-endpoints-'));
let api: ServerProcess;
let web: NextApp;
let browser: Browser;
const runs: Record<string, string> = {};

async function storeRun(side: 'base' | 'head', withNames: boolean): Promise<string> {
  const id = await createRun(api.url, { service: withNames ? 'shop' : 'shop-plain', release: side === 'base' ? 'v1' : 'v2' });
  for (const [i, level] of LEVELS.entries()) {
    const from = T0 + i * 10_000 + 250.5;
    const step = await postJson(`${api.url}/api/v1/runs/${id}/steps`, { level, started_at: from, measure_from: from, ended_at: from + WINDOW_MS });
    if (step.status !== 200) throw new Error(`step refused: ${JSON.stringify(step.body)}`);
    const draws = Object.fromEntries(NAMES.map((n, j) => [n, prng(1000 * i + j + 1)])) as Record<Name, () => number>;
    const rows = Array.from({ length: PER_LEVEL }, (_, k) => {
      const name = NAMES[k % NAMES.length]!;
      return { name, ts: from + ((k + 0.5) * WINDOW_MS) / PER_LEVEL, latency: SERVICE_MS[name] * (name === 'checkout' ? level : 1) * Math.exp((draws[name]() - 0.5) * 1.2) * SCALE[side][name] };
    });
    const batch = {
      batch_id: `${side}-${level}`,
      agent_id: 'mix-agent',
      level: rows.map(() => level),
      ts_ms: rows.map((r) => r.ts),
      latency_ms: rows.map((r) => r.latency),
      compute_ms: rows.map(() => null),
      queue_ms: rows.map(() => null),
      status: rows.map(() => 200),
      ...(withNames ? { name: rows.map((r) => r.name) } : {}),
    };
    const res = await postJson(`${api.url}/api/v1/runs/${id}/events`, batch);
    if (res.status !== 200) throw new Error(`events refused: ${JSON.stringify(res.body)}`);
  }
  return id;
}

beforeAll(async () => {
  api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
  runs.base = await storeRun('base', true);
  runs.head = await storeRun('head', true);
  runs.plainBase = await storeRun('base', false);
  runs.plainHead = await storeRun('head', false);
  web = await startNextApp({ apiUrl: api.url });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('per endpoint on the comparison', () => {
  it('lists each shared endpoint’s verdict: checkout faster, search slower, cart unchanged', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${web.url}/compare?base=${runs.base}&head=${runs.head}`);
    await page.getByTestId('endpoint-changes').waitFor();
    const items = page.getByTestId('endpoint-change');
    expect(await items.evaluateAll((els) => els.map((e) => [e.getAttribute('data-name'), e.getAttribute('data-verdict')]))).toEqual([
      ['cart', 'no significant change'],
      ['checkout', 'improvement'],
      ['search', 'regression'],
    ]);
    expect(await page.locator('[data-testid="endpoint-change"][data-name="checkout"]').textContent()).toMatch(/^checkout: faster \(−40% p99 at [124]\)$/);
    expect(await page.locator('[data-testid="endpoint-change"][data-name="search"]').textContent()).toMatch(/^search: slower \(\+50% p99 at [124]\)$/);
    await page.getByTestId('endpoint-changes').screenshot({ path: path.join(SCREENSHOT_DIR, 'compare-endpoint-changes.png') });
    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('comparison per endpoint', axe.blocking)).toEqual([]);
    await page.close();

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${web.url}/compare?base=${runs.base}&head=${runs.head}`);
    await phone.getByTestId('endpoint-changes').waitFor();
    expect((await overflow(phone)).culprits).toEqual([]);
    await phone.close();
  });

  it('shows no per-endpoint list for runs without names', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${web.url}/compare?base=${runs.plainBase}&head=${runs.plainHead}`);
    // The statistics have arrived once the level-by-level tables are drawn.
    await page.getByTestId('delta-csv').waitFor();
    expect(await page.getByTestId('endpoint-changes').count()).toBe(0);
    await page.close();
  });
});
