import type { RunDetail } from '@kneeboard/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uslFitSummary } from '../src/lib/usl.ts';
import { FIXTURE_IDS } from './fixture-data.ts';
import { startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ live: false });
});

afterAll(async () => {
  await stack?.close();
});

function fixture(id: string): RunDetail & { analysis: NonNullable<RunDetail['analysis']> } {
  const d = stack.api.runs.find((r) => r.run.id === id);
  if (!d?.analysis) throw new Error(`fixture ${id} has no analysis`);
  return d as RunDetail & { analysis: NonNullable<RunDetail['analysis']> };
}

async function num(page: Page, selector: string, attr: string): Promise<number> {
  const v = await page.locator(selector).getAttribute(attr);
  if (v === null) throw new Error(`${selector} has no ${attr}`);
  return Number(v);
}

/** The knee line's x in a chart, and the x of the point drawn at `level` in the same chart. */
async function kneeAndDotX(page: Page, chart: string, series: string, level: number) {
  const knee = await num(page, `[data-testid="${chart}"] .kb-knee .kb-knee-line`, 'x1');
  const dot = await num(page, `[data-testid="${chart}"] circle.kb-dot[data-series="${series}"][data-level="${level}"]`, 'cx');
  return { knee, dot };
}

/** The x of every vertex of the USL path, in order. */
async function uslXs(page: Page): Promise<number[]> {
  const d = (await page.locator('[data-testid="qps-chart"] path.kb-usl').getAttribute('d')) ?? '';
  return [...d.matchAll(/[ML](-?[\d.]+),/g)].map((m) => Number(m[1]));
}

describe('knee analysis on the run page', () => {
  it('states the verdict and the knee’s reason at the top, and marks the knee on both charts at its level', async () => {
    const seed = fixture(FIXTURE_IDS.seed);
    const knee = seed.analysis.knee!;
    expect(knee.level).toBe(8);
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}`);

    // The verdict is server-rendered, above the metadata and the charts.
    const verdict = page.getByTestId('verdict');
    expect(await verdict.textContent()).toBe(seed.analysis.verdict);
    // Linear to 4, flat from 8: a hard limit (the machine's 8 cores), not contention.
    expect(seed.analysis.verdict).toMatch(/^Hard limit of about 100 QPS from concurrency 8 to 32: throughput is flat, not falling/);
    expect(await page.getByTestId('knee-reason').textContent()).toBe(knee.reason);
    const verdictBox = (await verdict.boundingBox())!;
    const metaBox = (await page.locator('dl.meta').boundingBox())!;
    expect(verdictBox.y).toBeLessThan(metaBox.y);
    // Its one warning: why the USL fit is not trusted.
    expect(seed.analysis.warnings).toEqual([seed.analysis.usl_untrusted_reason]);
    expect(await page.getByTestId('analysis-warnings').locator('li').allTextContents()).toEqual(seed.analysis.warnings);

    // The knee line sits exactly where the level-8 point is drawn, in both charts, on both x scales.
    await page.locator('[data-testid="qps-chart"] .kb-knee').waitFor();
    for (const scale of ['log', 'linear'] as const) {
      await page.locator('[data-testid="x-scale"] button', { hasText: scale }).click();
      await expect.poll(() => page.locator('[data-testid="x-scale"] button[aria-pressed="true"]').textContent()).toBe(scale);
      for (const [chart, series] of [
        ['qps-chart', 'qps'],
        ['latency-chart', 'p50_ms'],
      ] as const) {
        expect(await page.locator(`[data-testid="${chart}"] .kb-knee`).count()).toBe(1);
        expect(await page.locator(`[data-testid="${chart}"] .kb-knee`).getAttribute('data-level')).toBe('8');
        const { knee: kx, dot } = await kneeAndDotX(page, chart, series, 8);
        expect(Math.abs(kx - dot)).toBeLessThan(0.5);
        const neighbour = await num(page, `[data-testid="${chart}"] circle.kb-dot[data-series="${series}"][data-level="16"]`, 'cx');
        expect(Math.abs(kx - neighbour)).toBeGreaterThan(20);
        expect(await page.locator(`[data-testid="${chart}"] .kb-knee-tag text`).textContent()).toBe('knee · 8');
        // The reason is the line's hover text.
        expect(await page.locator(`[data-testid="${chart}"] .kb-knee > title`).textContent()).toBe(knee.reason);
      }
    }

    // The tag sits above the plot: it cannot cover a data point.
    const tagBottom = await page.locator('[data-testid="qps-chart"] .kb-knee-tag rect').evaluate((el) => el.getBoundingClientRect().bottom);
    const lineTop = await page.locator('[data-testid="qps-chart"] .kb-knee-line').evaluate((el) => el.getBoundingClientRect().top);
    expect(tagBottom).toBeLessThanOrEqual(lineTop + 0.5);

    // Evidence: every method's level, the chosen one first.
    const evidence = page.getByTestId('knee-evidence');
    await evidence.locator('summary').click();
    const items = await evidence.locator('li').allTextContents();
    expect(items.length).toBe(seed.analysis.knee_candidates.length);
    expect(items[0]).toMatch(/throughput bends \(Kneedle\)\s*→\s*concurrency 8\s*the knee/);
    expect(items.join('\n')).toMatch(/peak of the USL fit \(N\*\)\s*→\s*concurrency 17\.8/);
    expect(items.join('\n')).toMatch(/p50 grows with the load\s*→\s*concurrency 8/);

    // The fit's parameters with their standard errors.
    const fitText = (await page.getByTestId('usl-fit').textContent()) ?? '';
    for (const row of uslFitSummary(seed.analysis.usl!, seed.analysis.usl_trusted, 'concurrency').rows) expect(fitText).toContain(`${row.symbol}${row.value}`);
    expect(fitText).toMatch(/λ24\.2 ± 3\.3/);
    expect(fitText).toContain('poor fit');
    expect(await page.getByTestId('usl-fit-distrust').textContent()).toBe('not trusted: not drawn over the measurements by default');
    expect(await page.getByTestId('usl-fit-distrust').getAttribute('title')).toBe(seed.analysis.usl_untrusted_reason);

    await stack.screenshot(page, 'run-page-evidence');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('does not draw an untrusted fit over flat data by default; switched on, draws it at its own levels, and the toggle hides and shows it', async () => {
    const seed = fixture(FIXTURE_IDS.seed);
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}`);
    const usl = page.locator('[data-testid="qps-chart"] path.kb-usl');
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();

    // The analysis does not trust a USL over a hard limit (it peaks at 108 above data flat at
    // 100–103), so it is not drawn by default; the legend entry still switches it on.
    expect(seed.analysis.usl_trusted).toBe(false);
    const toggle = page.getByTestId('toggle-usl').locator('input');
    expect(await toggle.isChecked()).toBe(false);
    expect(await usl.count()).toBe(0);
    expect(await page.getByTestId('toggle-usl').textContent()).toContain('USL fit');
    await toggle.check();
    await usl.waitFor();

    // Every fitted point is placed by its level on the numeric axis: the line starts on the first
    // measured point and ends on the last, and its x only grows (51 points, none at a swept level
    // except the ends).
    for (const scale of ['log', 'linear'] as const) {
      await page.locator('[data-testid="x-scale"] button', { hasText: scale }).click();
      await expect.poll(() => page.locator('[data-testid="x-scale"] button[aria-pressed="true"]').textContent()).toBe(scale);
      expect(Number(await usl.getAttribute('data-points'))).toBe(seed.analysis.usl_curve.length);
      const xs = await uslXs(page);
      expect(xs.length).toBe(seed.analysis.usl_curve.length);
      for (let i = 1; i < xs.length; i++) expect(xs[i]!).toBeGreaterThan(xs[i - 1]!);
      const first = await num(page, '[data-testid="qps-chart"] circle.kb-dot[data-level="1"]', 'cx');
      const last = await num(page, '[data-testid="qps-chart"] circle.kb-dot[data-level="32"]', 'cx');
      expect(Math.abs(xs[0]! - first)).toBeLessThan(0.5);
      expect(Math.abs(xs[xs.length - 1]! - last)).toBeLessThan(0.5);
      if (scale === 'log') {
        // N* = 17.8 lies a little right of the level-16 point on a log axis.
        const n16 = await num(page, '[data-testid="qps-chart"] circle.kb-dot[data-level="16"]', 'cx');
        const peakX = xs[seed.analysis.usl_curve.findIndex((p) => p.level === seed.analysis.usl!.peak_level)]!;
        expect(peakX).toBeGreaterThan(n16);
        expect(peakX).toBeLessThan(n16 + (last - n16) / 2);
      }
    }

    // The tooltip says what the fit predicts at a level, and the level's efficiency.
    await page.locator('[data-testid="qps-chart"] circle.kb-dot[data-level="8"]').hover();
    const tip = page.locator('[data-testid="qps-chart"] [data-testid="chart-tooltip"]');
    await tip.waitFor();
    expect(await tip.textContent()).toMatch(/throughput\s*100 req\/s.*USL fit\s*\d+\.\d req\/s.*efficiency\s*63%/);

    await toggle.uncheck();
    await expect.poll(() => usl.count()).toBe(0);
    expect(await page.locator('[data-testid="qps-chart"] circle.kb-dot').count()).toBe(seed.curve.length);
    await toggle.check();
    await expect.poll(() => usl.count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('does not draw a poor fit by default, and says why the fit is poor', async () => {
    const noisy = fixture(FIXTURE_IDS.noisy);
    expect(noisy.analysis.usl_trusted).toBe(false);
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.noisy}`);
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();
    const toggle = page.getByTestId('toggle-usl').locator('input');
    expect(await toggle.isChecked()).toBe(false);
    expect(await page.locator('[data-testid="qps-chart"] path.kb-usl').count()).toBe(0);
    expect(await page.getByTestId('usl-fit').textContent()).toContain('poor fit');
    expect(await page.getByTestId('analysis-warnings').textContent()).toMatch(/The USL fits poorly \(R² = 0\.\d\d\)/);
    await toggle.check();
    await expect.poll(() => page.locator('[data-testid="qps-chart"] path.kb-usl').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('warns about generator-limited levels near the verdict and flags them in the curve table, with efficiency per level', async () => {
    const run = fixture(FIXTURE_IDS.generatorLimited);
    const limited = run.analysis.littles_law.filter((c) => c.generator_limited).map((c) => c.level);
    expect(limited).toEqual([32, 64, 128]);
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.generatorLimited}`);

    const warnings = page.getByTestId('analysis-warnings');
    await warnings.waitFor();
    const items = await warnings.locator('li').allTextContents();
    expect(items).toEqual(run.analysis.warnings);
    expect(items.join(' ')).toMatch(/generator-limited at concurrency 32 \(19\.9 in flight\), 64/);
    expect(items.join(' ')).toMatch(/Requests failed at concurrency 128/);
    // Near the verdict: in the same panel, above the charts.
    expect(await page.getByTestId('analysis').locator('[data-testid="analysis-warnings"]').count()).toBe(1);

    const rows = page.locator('[data-testid="curve-table"] tbody tr');
    const flagged = await rows.evaluateAll((els) =>
      els.filter((e) => e.getAttribute('data-generator-limited') === 'true').map((e) => Number(e.getAttribute('data-level'))),
    );
    expect(flagged).toEqual(limited);
    expect(await page.locator('[data-testid="curve-table"] [data-testid="generator-limited"]').count()).toBe(limited.length);
    const row32 = page.locator('[data-testid="curve-table"] tr[data-level="32"]');
    expect(await row32.locator('td.in-flight').getAttribute('title')).toMatch(/19\.9 requests in flight \(QPS × mean latency\), 62% of concurrency 32\. More than 10% short/);

    // Efficiency per level as a percentage, with the analysis' basis as the caption.
    const eff = await page.locator('[data-testid="curve-table"] [data-testid="efficiency"]').allTextContents();
    expect(eff).toEqual(['100%', '99%', '97%', '92%', '85%', '51%', '25%', '12%']);
    expect(await page.getByTestId('efficiency-basis').textContent()).toBe(run.analysis.efficiency_basis);

    // The knee (32, the last level before the plateau) is marked; the plateau is the generator's.
    expect(await page.locator('[data-testid="qps-chart"] .kb-knee').getAttribute('data-level')).toBe('32');
    await stack.screenshot(page, 'run-page-generator-limited');
    expect(errors).toEqual([]);
    await page.close();
  });
});
