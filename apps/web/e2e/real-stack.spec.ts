/**
 * The whole product with nothing standing in: the real API on the embedded ClickHouse, the demo
 * target, the `kneeboard` CLI sweeping it, the built web app and Chromium. The run page must gain
 * points while the sweep runs, and end as the finished curve.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '@kneeboard/api/testing';
import { ListRunsResponse } from '@kneeboard/contracts';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { launchChromium } from './browser.ts';
import { startNextApp, type NextApp } from './next-app.ts';
import { SCREENSHOT_DIR } from './stack.ts';

const KNEEBOARD = fileURLToPath(new URL('../node_modules/@kneeboard/agent/bin/kneeboard.mjs', import.meta.url));
const LEVELS = [1, 2, 4, 8, 16];

const dataDir = mkdtempSync(path.join(tmpdir(), 'kb-web-real-'));
let api: ServerProcess;
let target: DemoTarget;
let web: NextApp;
let browser: Browser;
let sweep: ChildProcess | undefined;

beforeAll(async () => {
  [api, target] = await Promise.all([startServerProcess({ KNEEBOARD_DATA_DIR: dataDir }), startDemoTarget({ workers: 4, serviceMs: 20, port: 0 })]);
  web = await startNextApp({ apiUrl: api.url });
  browser = await launchChromium();
});

afterAll(async () => {
  sweep?.kill('SIGKILL');
  await browser?.close();
  await web?.close();
  await Promise.all([api?.stop(), target?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a real sweep, watched in the browser', () => {
  it('gains points while the agent sweeps, then shows the finished curve with its knee', async () => {
    sweep = spawn(
      process.execPath,
      [KNEEBOARD, 'sweep', '--target', target.url, '--levels', LEVELS.join(','), '--duration', '2s', '--warmup', '500ms', '--service', 'demo-target', '--release', 'v1.0.0', '--name', 'browser e2e', '--api', api.url, '--web', web.url],
      { stdio: 'ignore' },
    );
    const sweepDone = new Promise<number | null>((resolve) => sweep?.on('close', resolve));

    let runId: string | undefined;
    for (let i = 0; i < 100 && !runId; i++) {
      runId = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs`)).json()).runs[0]?.id;
      if (!runId) await new Promise((r) => setTimeout(r, 100));
    }
    expect(runId).toBeDefined();

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${web.url}/runs/${runId}`);
    const dots = page.locator('[data-testid="qps-chart"] circle.kb-dot');

    // Count the points seen while the run is still live: they must grow.
    const seenWhileLive = new Set<number>();
    const deadline = Date.now() + 40_000;
    while (Date.now() < deadline) {
      const live = (await page.getByTestId('live-indicator').count()) > 0;
      if (!live) break;
      seenWhileLive.add(await dots.count());
      await page.waitForTimeout(250);
    }
    expect(seenWhileLive.size).toBeGreaterThanOrEqual(3);
    expect(Math.max(...seenWhileLive)).toBeGreaterThan(Math.min(...seenWhileLive));

    expect(await sweepDone).toBe(0);
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 10_000 }).toBe('finished');
    await expect.poll(() => dots.count(), { timeout: 10_000 }).toBe(LEVELS.length);
    const levels = await dots.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-level'))));
    expect(levels).toEqual(LEVELS);
    await page.mouse.move(2, 2);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'real-run.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});
