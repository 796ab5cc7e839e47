/**
 * What each level cost the server, on the run page (issue 28): the open level's figures — cores
 * used, peak memory, requests/s per core, CPU-seconds per 1,000 requests, the gaps named — beside
 * the "What it costs" panel's verdict, and seed 002's sentence (4.6× the CPU for 2.14× the
 * throughput). The fixture's cost is the analysis package's own `runCost` over per-second series.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '@kneeboard/contracts';
import { formatBytes, formatCoresUsed, formatPercent, formatQps, formatSignificant } from '@kneeboard/contracts/figures';
import { formatViolations, runAxe } from './axe.ts';
import { fixtureCost, SEED_001_METRICS, SEED_002_ID, SEED_002_METRICS, seed002Run } from './fixture-cost.ts';
import { FIXTURE_IDS } from './fixture-data.ts';
import { overflow } from './overflow.ts';
import { SCREENSHOT_DIR, startStack, type Stack } from './stack.ts';

let stack: Stack;

const costs = (d: RunDetail) => (d.run.id === FIXTURE_IDS.seed ? fixtureCost(d, SEED_001_METRICS) : d.run.id === SEED_002_ID ? fixtureCost(d, SEED_002_METRICS) : null);

beforeAll(async () => {
  stack = await startStack({ live: false, costs });
  stack.api.addRun(seed002Run(Date.now()));
});

afterAll(async () => {
  await stack?.close();
});

const runOf = (id: string) => stack.api.runs.find((d) => d.run.id === id)!;

describe('what a level cost the server (run page)', () => {
  it('shows the open level’s cores used, peak memory, QPS per core, CPU-seconds per 1,000 requests and its gap, axe clean', async () => {
    const cost = fixtureCost(runOf(FIXTURE_IDS.seed), SEED_001_METRICS);
    const want = cost.levels.find((l) => l.level === 16)!;
    expect(want.notes).toHaveLength(1);
    // Two seconds lost against a level read in full (every step starts at the same sub-second offset).
    expect(want.seconds).toBe(cost.levels.find((l) => l.level === 8)!.seconds - 2);

    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}?level=16`);
    const panel = page.getByTestId('level-panel');
    const table = panel.getByTestId('level-cost-table');
    await table.waitFor();
    expect(await panel.getByTestId('level-cores').textContent()).toBe(`${formatCoresUsed(want.cores_used)} of 8`);
    expect(await panel.getByTestId('level-peak-memory').textContent()).toBe(formatBytes(want.peak_memory_bytes));
    expect(await panel.getByTestId('level-qps-per-core').textContent()).toBe(formatQps(want.qps_per_core));
    expect(await panel.getByTestId('level-cpu-per-1k').textContent()).toBe(formatSignificant(want.cpu_seconds_per_1k));
    expect(await panel.getByTestId('level-efficiency-per-core').textContent()).toBe(formatPercent(want.efficiency_per_core));
    expect(await panel.getByTestId('level-cost-gaps').textContent()).toBe(want.notes[0]);
    expect(want.notes[0]).toMatch(/^cpu: no samples between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d \(connection refused\)$/);
    // The figures are the cost panel's row for the same level: one answer, two places.
    const row = page.locator('[data-testid="cost-table"] tr[data-level="16"] td');
    expect(await row.first().textContent()).toBe(`${formatCoresUsed(want.cores_used)} of 8`);
    // The knee is where the 8 cores ran out.
    expect(cost.verdict).toBe('saturates at 8 with 7.6 of 8 cores busy: CPU-bound');
    expect(await page.getByTestId('cost-verdict').textContent()).toBe(cost.verdict);

    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('run page with the level cost open', axe.blocking)).toEqual([]);

    await page.getByTestId('run-cost').scrollIntoViewIfNeeded();
    await page.mouse.move(2, 2);
    await page.getByTestId('run-cost').screenshot({ path: `${SCREENSHOT_DIR}/run-cost-panel.png` });
    await panel.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: `${SCREENSHOT_DIR}/level-cost.png` });
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('shows another level’s own figures when it is opened from the table, with no gap list where nothing was lost', async () => {
    const cost = fixtureCost(runOf(FIXTURE_IDS.seed), SEED_001_METRICS);
    const four = cost.levels.find((l) => l.level === 4)!;
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}`);
    await page.locator('[data-testid="cost-table"] tr[data-level="4"]').waitFor();
    await page.locator('[data-testid="curve-table"] tr[data-level="4"] [data-testid="open-level"]').click();
    await expect.poll(() => page.getByTestId('level-panel').getAttribute('data-level')).toBe('4');
    await expect.poll(() => page.getByTestId('level-cores').textContent()).toBe(`${formatCoresUsed(four.cores_used)} of 8`);
    expect(await page.getByTestId('level-cpu-per-1k').textContent()).toBe(formatSignificant(four.cpu_seconds_per_1k));
    expect(await page.getByTestId('level-cost-gaps').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('keeps the level’s cost and its gap inside a phone’s width (the table scrolls in its own box)', async () => {
    const { page, errors } = await stack.newPage({ width: 390, height: 844 });
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}?level=16`);
    await page.getByTestId('level-cost-gaps').waitFor();
    const o = await overflow(page);
    expect(o.scrollWidth, o.culprits.join('\n')).toBeLessThanOrEqual(390);
    await page.getByTestId('level-cost').screenshot({ path: `${SCREENSHOT_DIR}/level-cost-390.png` });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows no cost figures in the level panel of a run without server metrics', async () => {
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.wide}?level=16`);
    await page.getByTestId('level-panel').getByTestId('level-latency-table').waitFor();
    // Once the cost has been read (the panel says there is none), the level has no cost block.
    await page.getByTestId('run-cost').getByText('No server metrics in this run', { exact: false }).waitFor();
    expect(await page.getByTestId('level-cost').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('states seed 002’s bill: 2.14× the throughput for 4.6× the CPU', async () => {
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${SEED_002_ID}`);
    const sentence = page.getByTestId('cost-scaling');
    await sentence.waitFor();
    expect(await sentence.textContent()).toBe('threads 1 → 4: 2.14× the throughput for 4.6× the CPU — each core delivers 46% of what it did at 1');
    expect(await page.locator('[data-testid="cost-table"] tr[data-level="4"] td').first().textContent()).toBe('4.6 of 32');
    // Export offers the same as Markdown and as the embeddable SVG, the zoomed levels carried.
    await page.goto(`${stack.web.url}/runs/${SEED_002_ID}?levels=4`);
    await page.getByTestId('cost-scaling').waitFor();
    const hrefs = await page.getByTestId('export-link').evaluateAll((els) => els.map((e) => e.getAttribute('href')));
    expect(hrefs).toContain(`/api/v1/runs/${SEED_002_ID}/cost.md`);
    expect(hrefs).toContain(`/api/v1/runs/${SEED_002_ID}/cost.svg?levels=4`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
