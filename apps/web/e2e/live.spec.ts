import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_LEVELS, liveRunAt } from './fixture-data.ts';
import { startStack, type Stack } from './stack.ts';

const STEP_MS = 400;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ liveStepMs: STEP_MS });
});

afterAll(async () => {
  await stack?.close();
});

/** Levels drawn in the QPS chart, and whether a hollow (in-progress) point is among them. */
async function drawn(page: import('playwright-core').Page) {
  return page.locator('[data-testid="qps-chart"] circle.kb-dot').evaluateAll((els) => ({
    levels: els.map((e) => Number(e.getAttribute('data-level'))),
    live: els.filter((e) => e.getAttribute('data-in-progress') === 'true').map((e) => Number(e.getAttribute('data-level'))),
  }));
}

describe('live run', () => {
  it('gains points over Server-Sent Events while the run runs, then settles as finished', async () => {
    stack.api.setSseEnabled(true);
    stack.api.restartLive();
    // Held at its first level until the page has had its first look: on a loaded box the page can
    // take longer to load than the whole sweep takes to run.
    stack.api.setLivePaused(true);
    const before = stack.api.stats();
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${stack.api.liveRunId}`);
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();

    const first = await drawn(page);
    expect(first.levels.length).toBeGreaterThanOrEqual(1);
    expect(first.levels.length).toBeLessThan(LIVE_LEVELS.length);
    expect(first.live.length).toBe(1); // the level being measured is drawn hollow
    await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-mode'), { timeout: 20_000 }).toBe('stream');

    // Before the 8-worker knee has levels past it to show, there is no knee to draw or state.
    const knees = () => page.locator('.kb-knee').evaluateAll((els) => els.map((e) => e.getAttribute('data-level')));
    if (first.levels.length < 8) {
      expect(await knees()).toEqual([]);
      expect(await page.getByTestId('verdict').textContent()).not.toMatch(/^Saturates/);
    }

    stack.api.setLivePaused(false);
    await expect.poll(async () => (await drawn(page)).levels.length, { timeout: 20_000 }).toBeGreaterThan(first.levels.length);
    await stack.screenshot(page, 'run-live');

    // As levels arrive the analysis firms up: a fit appears (its legend entry), then the knee appears
    // on both charts at the level-8 point, and the verdict names it ("Saturates at concurrency 8"
    // until the plateau spans three levels, then "Hard limit of about 368 QPS from concurrency 8").
    await expect.poll(() => page.getByTestId('toggle-usl').count(), { timeout: 8 * STEP_MS + 5000 }).toBe(1);
    await expect.poll(knees, { timeout: 8 * STEP_MS + 5000 }).toEqual(['8', '8']);
    expect(await page.getByTestId('verdict').textContent()).toMatch(/^(Saturates at|Hard limit of about \d+ QPS from) concurrency 8/);
    expect(await page.getByTestId('knee-reason').textContent()).toContain('concurrency 8');
    // Read the line and the point in one go: a snapshot arriving in between could widen the axis.
    const offsets = await page.evaluate(() =>
      (
        [
          ['qps-chart', 'qps'],
          ['latency-chart', 'p50_ms'],
        ] as const
      ).map(([chart, series]) => {
        const line = document.querySelector(`[data-testid="${chart}"] .kb-knee-line`);
        const dot = document.querySelector(`[data-testid="${chart}"] circle.kb-dot[data-series="${series}"][data-level="8"]`);
        return Math.abs(Number(line?.getAttribute('x1')) - Number(dot?.getAttribute('cx')));
      }),
    );
    for (const off of offsets) expect(off).toBeLessThan(0.5);
    const midRun = await page.getByTestId('run-status').textContent();
    if (midRun === 'running') await stack.screenshot(page, 'run-live-knee');

    // The whole sweep arrives, and the run turns finished without a reload.
    await expect.poll(async () => (await drawn(page)).levels, { timeout: LIVE_LEVELS.length * STEP_MS + 8000 }).toEqual(LIVE_LEVELS);
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 5000 }).toBe('finished');
    expect((await drawn(page)).live).toEqual([]);
    const final = liveRunAt(LIVE_LEVELS.length, 0).analysis;
    await expect.poll(() => page.getByTestId('verdict').textContent()).toBe(final.verdict);
    expect(await page.getByTestId('analysis-warnings').count()).toBe(final.warnings.length > 0 ? 1 : 0);
    expect(await page.locator('[data-testid="curve-table"] tbody tr').count()).toBe(LIVE_LEVELS.length);

    const after = stack.api.stats();
    expect(after.liveStreams - before.liveStreams).toBeGreaterThanOrEqual(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('falls back to polling every second when the stream is unavailable', async () => {
    stack.api.setSseEnabled(false);
    stack.api.restartLive();
    stack.api.setLivePaused(true);
    const before = stack.api.stats();
    const { page } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${stack.api.liveRunId}`);
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();
    const first = await drawn(page);
    await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-mode'), { timeout: 20_000 }).toBe('polling');
    stack.api.setLivePaused(false);
    await expect.poll(async () => (await drawn(page)).levels.length, { timeout: 20_000 }).toBeGreaterThan(first.levels.length);
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: LIVE_LEVELS.length * STEP_MS + 8000 }).toBe('finished');
    expect((await drawn(page)).levels).toEqual(LIVE_LEVELS);

    const polls = (stack.api.stats().detailGets[stack.api.liveRunId] ?? 0) - (before.detailGets[stack.api.liveRunId] ?? 0);
    expect(polls).toBeGreaterThanOrEqual(3); // one server render + at least two browser polls
    stack.api.setSseEnabled(true);
    await page.close();
  });
});
