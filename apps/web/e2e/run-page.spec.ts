import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_IDS } from './fixture-data.ts';
import { startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ live: false });
});

afterAll(async () => {
  await stack?.close();
});

describe('run page (finished run)', () => {
  it('draws one point per level in every line chart, with units on the axes, and the curve table', async () => {
    const seed = stack.api.runs.find((d) => d.run.id === FIXTURE_IDS.seed)!;
    const levels = seed.curve.map((p) => p.level);
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}`);

    const qpsDots = page.locator('[data-testid="qps-chart"] circle.kb-dot');
    await qpsDots.first().waitFor();
    expect(await qpsDots.count()).toBe(levels.length);
    const drawnLevels = await qpsDots.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-level'))));
    expect(drawnLevels).toEqual(levels);

    // p50 and p99 by default: one point per level each.
    expect(await page.locator('[data-testid="latency-chart"] circle.kb-dot[data-series="p50_ms"]').count()).toBe(levels.length);
    expect(await page.locator('[data-testid="latency-chart"] circle.kb-dot[data-series="p99_ms"]').count()).toBe(levels.length);
    expect(await page.locator('[data-testid="latency-chart"] circle.kb-dot[data-series="p90_ms"]').count()).toBe(0);

    // Three stacked components per level.
    expect(await page.locator('[data-testid="split-chart"] .recharts-bar-rectangle').count()).toBe(levels.length * 3);

    const svgText = await page.locator('.recharts-surface').allTextContents();
    const text = svgText.join(' ');
    expect(text).toContain('concurrency');
    expect(text).toContain('throughput (req/s)');
    expect(text).toContain('latency (ms)');
    expect(text).toContain('p50 latency (ms)');

    const rows = page.locator('[data-testid="curve-table"] tbody tr');
    expect(await rows.count()).toBe(levels.length);
    expect(await rows.nth(3).locator('td').allTextContents()).toContain('100'); // concurrency 8: 100 QPS in seed 001 (a cell of its own)
    await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('finished');
    expect(await page.getByTestId('live-indicator').count()).toBe(0);

    // Exact values on hover: QPS with one decimal, milliseconds with two, and the counts.
    await qpsDots.nth(3).hover();
    const qpsTip = page.locator('[data-testid="qps-chart"] [data-testid="chart-tooltip"]');
    await qpsTip.waitFor();
    expect(await qpsTip.textContent()).toMatch(/concurrency\s*8.*throughput\s*100 req\/s.*requests\s*1,000.*errors\s*0/);
    await page.locator('[data-testid="latency-chart"] circle.kb-dot[data-series="p99_ms"][data-level="16"]').hover();
    const latencyTip = page.locator('[data-testid="latency-chart"] [data-testid="chart-tooltip"]');
    await latencyTip.waitFor();
    expect(await latencyTip.textContent()).toMatch(/concurrency\s*16.*p50\s*157 ms.*p99\s*216 ms/);

    // The kept screenshot (used in the root README): verdict, knee and fit, with no tooltip over them.
    await page.mouse.move(2, 2);
    await latencyTip.waitFor({ state: 'hidden' });
    await stack.screenshot(page, 'run-page');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a missing percentile as a gap, switches the latency axis to log, and toggles p90', async () => {
    const wide = stack.api.runs.find((d) => d.run.id === FIXTURE_IDS.wide)!;
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.wide}`);
    const qpsDots = page.locator('[data-testid="qps-chart"] circle.kb-dot');
    await qpsDots.first().waitFor();
    // QPS 0 at 512 is a measurement: drawn. Its latency percentiles are null: not drawn.
    expect(await qpsDots.count()).toBe(wide.curve.length);
    const p50 = page.locator('[data-testid="latency-chart"] circle.kb-dot[data-series="p50_ms"]');
    expect(await p50.count()).toBe(wide.curve.length - 1);

    // 1…512 spans 512×: the level axis starts out logarithmic, every level a tick.
    expect(await page.locator('[data-testid="x-scale"] button[aria-pressed="true"]').textContent()).toBe('log');
    const ticks = await page.locator('[data-testid="qps-chart"] .recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
    expect(ticks).toEqual(wide.curve.map((p) => String(p.level)));

    const yTicks = () => page.locator('[data-testid="latency-chart"] .recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
    expect(await yTicks()).toContain('0'); // linear starts at 0
    await page.locator('[data-testid="y-scale"] button', { hasText: 'log' }).click();
    await expect.poll(async () => (await yTicks()).includes('0')).toBe(false);
    const logTicks = (await yTicks()).map((t) => (t.endsWith('k') ? Number.parseFloat(t) * 1000 : Number.parseFloat(t)));
    expect(logTicks.length).toBeGreaterThan(2);
    expect(logTicks.every((t) => t > 0)).toBe(true);
    expect(await p50.count()).toBe(wide.curve.length - 1);

    await page.getByTestId('toggle-p90_ms').locator('input').check();
    await expect.poll(() => page.locator('[data-testid="latency-chart"] circle.kb-dot[data-series="p90_ms"]').count()).toBe(wide.curve.length - 1);

    // The table says the same: a dash, never 0.00.
    const lastRow = page.locator('[data-testid="curve-table"] tbody tr').last();
    expect(await lastRow.textContent()).toContain('—');
    await stack.screenshot(page, 'run-page-wide-log');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('answers an unknown run with a not-found page', async () => {
    const { page } = await stack.newPage();
    const res = await page.goto(`${stack.web.url}/runs/00000000-0000-4000-8000-00000000ffff`);
    expect(res?.status()).toBe(404);
    await page.getByTestId('run-not-found').waitFor();
    await page.close();
  });
});
