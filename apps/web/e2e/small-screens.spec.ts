import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_IDS, LIVE_LEVELS } from './fixture-data.ts';
import { RELEASE_IDS as R } from './fixture-releases.ts';
import { overflow } from './overflow.ts';
import { SCREENSHOT_DIR, startStack, type Stack } from './stack.ts';

const STEP_MS = 700;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ releases: true, liveStepMs: STEP_MS });
});

afterAll(async () => {
  await stack?.close();
});

const COMPARE = `/compare?base=${R.fusilladeBefore}&head=${R.fusilladeAfter}&head=${R.fusilladeK6}`;
const PHONE = { width: 390, height: 844 };

describe('small screens (390 px)', () => {
  const pages = [
    { name: 'runs-list', path: '/', ready: '[data-testid="run-row"]' },
    { name: 'run-page', path: `/runs/${FIXTURE_IDS.seed}`, ready: '[data-testid="qps-chart"] circle.kb-dot' },
    { name: 'run-page-open-loop', path: `/runs/${FIXTURE_IDS.aborted}`, ready: '[data-testid="qps-chart"] circle.kb-dot' },
    { name: 'compare', path: COMPARE, ready: '[data-testid="overlay-qps"] circle.kb-dot' },
    { name: 'service', path: '/services/fusillade', ready: '[data-testid="select-run"]' },
    { name: 'review', path: COMPARE.replace('/compare', '/review'), ready: '[data-testid="verdict-banner"]' },
  ];
  for (const p of pages) {
    it(`${p.name}: nothing wider than the screen (wide tables scroll inside their own box)`, async () => {
      const { page, errors } = await stack.newPage(PHONE);
      await page.goto(`${stack.web.url}${p.path}`);
      await page.locator(p.ready).first().waitFor();
      await page.waitForTimeout(300);
      await stack.screenshot(page, `${p.name}-390`);
      const o = await overflow(page);
      expect(o.scrollWidth, o.culprits.join('\n')).toBeLessThanOrEqual(PHONE.width);
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});

describe('live run layout', () => {
  it('puts the first chart above the fold at 1280×800', async () => {
    stack.api.restartLive();
    const { page } = await stack.newPage({ width: 1280, height: 800 });
    await page.goto(`${stack.web.url}/runs/${stack.api.liveRunId}`);
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: `${SCREENSHOT_DIR}/run-live-1280-fold.png` });
    const box = await page.getByTestId('qps-chart').boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y).toBeLessThan(800);
    // Most of the chart's plot, not just its title, is on the first screen.
    const plot = await page.locator('[data-testid="qps-chart"] .recharts-surface').first().boundingBox();
    expect(plot!.y + plot!.height / 2).toBeLessThan(800);
    await page.close();
  });

  it('keeps one level axis for the whole sweep: log from the second level on, never switching', async () => {
    // Held at its first levels while the page loads, so the sampling starts before the old switch point.
    stack.api.restartLive();
    stack.api.setLivePaused(true);
    const { page } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${stack.api.liveRunId}`);
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();
    stack.api.setLivePaused(false);
    const seen: { levels: number; scale: string | null }[] = [];
    const pressed = () => page.locator('[data-testid="x-scale"] button[aria-pressed="true"]').first().textContent();
    // Sample while the live run passes the point (8× span, the seventh level) where the old span rule switched.
    const deadline = Date.now() + STEP_MS * (LIVE_LEVELS.length + 6);
    while (Date.now() < deadline) {
      const levels = await page.locator('[data-testid="qps-chart"] circle.kb-dot').count();
      seen.push({ levels, scale: await pressed() });
      if (levels >= 9) break;
      await page.waitForTimeout(STEP_MS / 3);
    }
    const past = seen.filter((s) => s.levels >= 2);
    expect(Math.max(...seen.map((s) => s.levels))).toBeGreaterThanOrEqual(9);
    expect(past.some((s) => s.levels <= 6)).toBe(true); // sampled before the old switch point too
    expect(new Set(past.map((s) => s.scale))).toEqual(new Set(['log']));
    await page.close();
  });
});

describe('wide screens (1280 px)', () => {
  const pages = [
    { name: 'runs-list', path: '/', ready: '[data-testid="run-row"]' },
    { name: 'run-page', path: `/runs/${FIXTURE_IDS.seed}`, ready: '[data-testid="qps-chart"] circle.kb-dot' },
    { name: 'compare', path: COMPARE, ready: '[data-testid="overlay-qps"] circle.kb-dot' },
    { name: 'service', path: '/services/fusillade', ready: '[data-testid="select-run"]' },
  ];
  for (const p of pages) {
    it(`${p.name}: nothing wider than the window at 1280 px`, async () => {
      const { page } = await stack.newPage({ width: 1280, height: 800 });
      await page.goto(`${stack.web.url}${p.path}`);
      await page.locator(p.ready).first().waitFor();
      await page.waitForTimeout(300);
      const o = await overflow(page);
      expect(o.scrollWidth, o.culprits.join('\n')).toBeLessThanOrEqual(1280);
      await stack.screenshot(page, `${p.name}-1280`);
      await page.close();
    });
  }
});
