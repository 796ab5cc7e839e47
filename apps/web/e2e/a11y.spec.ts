import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatViolations, runAxe } from './axe.ts';
import { FIXTURE_IDS } from './fixture-data.ts';
import { RELEASE_IDS as R } from './fixture-releases.ts';
import { REPEAT_IDS } from './fixture-repeats.ts';
import { startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  // The live run gains a level a minute: it stays "running" with a level in progress for the whole file.
  stack = await startStack({ releases: true, repeats: true, liveStepMs: 60_000 });
});

afterAll(async () => {
  await stack?.close();
});

const COMPARE = `base=${R.fusilladeBefore}&head=${R.fusilladeAfter}&head=${R.fusilladeK6}`;

/** Every page of the app, each with an element that shows it has rendered (and hydrated its charts). */
const PAGES: { name: string; path: string; ready: string; status?: number }[] = [
  { name: 'runs list', path: '/', ready: '[data-testid="run-row"]' },
  { name: 'run page (live)', path: `/runs/${FIXTURE_IDS.live}`, ready: '[data-testid="qps-chart"] circle.kb-dot' },
  { name: 'run page (finished)', path: `/runs/${FIXTURE_IDS.seed}`, ready: '[data-testid="qps-chart"] circle.kb-dot' },
  { name: 'run page (generator-limited)', path: `/runs/${FIXTURE_IDS.generatorLimited}`, ready: '[data-testid="qps-chart"] circle.kb-dot' },
  { name: 'run page (open loop, aborted)', path: `/runs/${FIXTURE_IDS.aborted}`, ready: '[data-testid="qps-chart"] circle.kb-dot' },
  { name: 'services', path: '/services', ready: 'main a[href^="/services/"]' },
  { name: 'service page', path: '/services/fusillade', ready: '[data-testid="select-run"]' },
  { name: 'compare', path: `/compare?${COMPARE}`, ready: '[data-testid="overlay-qps"] circle.kb-dot' },
  { name: 'compare (groups of repeats, zoomed)', path: `/compare?base=${REPEAT_IDS.v200.join(',')}&head=${REPEAT_IDS.v210.join(',')}&levels=2-16`, ready: '[data-testid="overlay-qps"] circle.kb-dot' },
  { name: 'compare (two releases)', path: '/compare?base=release:relay@v2.0.0&head=release:relay@v2.1.0', ready: '[data-testid="overlay-qps"] circle.kb-dot' },
  { name: 'review (two releases)', path: '/review?base=release:relay@v2.0.0&head=release:relay@v2.1.0', ready: '[data-testid="verdict-banner"]' },
  { name: 'service page (compare releases form)', path: '/services/relay', ready: '[data-testid="release-compare"]' },
  { name: 'release with no finished run (404)', path: '/compare?base=release:relay@v9&head=release:relay@v2.1.0', ready: '[data-testid="missing-releases"]', status: 404 },
  { name: 'compare (no runs picked)', path: '/compare', ready: 'main h1' },
  { name: 'review', path: `/review?${COMPARE}`, ready: '[data-testid="verdict-banner"]' },
  { name: 'unknown run (404)', path: '/runs/00000000-0000-4000-8000-00000000ffff', ready: '[data-testid="run-not-found"]', status: 404 },
  { name: 'unknown short link (404)', path: '/s/Nope1234', ready: '[data-testid="link-not-found"]', status: 404 },
  { name: 'unknown page (404)', path: '/no/such/page', ready: 'main h1', status: 404 },
];

describe('accessibility (axe-core)', () => {
  for (const p of PAGES) {
    it(`${p.name}: no serious or critical violations, one <h1>, a skip link to the content`, async () => {
      const { page } = await stack.newPage();
      const res = await page.goto(`${stack.web.url}${p.path}`);
      expect(res?.status()).toBe(p.status ?? 200);
      await page.locator(p.ready).first().waitFor();
      // Recharts animates lines in; let the last frame land so axe sees the settled page.
      await page.waitForTimeout(400);

      const report = await runAxe(page);
      if (report.other.length > 0) console.log(formatViolations(`${p.name} (moderate/minor, not failed on)`, report.other, 2));
      // Compared as one line per rule, so a failure reads as a list (the full report is the message).
      const rules = report.blocking.map((v) => `${v.impact} ${v.id} ×${v.nodes.length}`);
      expect(rules, formatViolations(p.name, report.blocking)).toEqual([]);

      expect(await page.locator('h1').count()).toBe(1);
      const skip = page.locator('a.skip-link');
      expect(await skip.getAttribute('href')).toBe('#content');
      expect(await page.locator('#content').count()).toBe(1);
      await page.close();
    });
  }

  it('the skip link is the first Tab stop, shows when focused, and moves focus to the content', async () => {
    const { page } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}`);
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();
    const skip = page.locator('a.skip-link');
    // Hidden until focused: off-screen, not display:none (so screen readers still find it).
    expect((await skip.boundingBox())?.y ?? 0).toBeLessThan(0);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.className)).toContain('skip-link');
    const box = await skip.boundingBox();
    expect(box?.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('content');
    await page.close();
  });

  it('a focused control draws a visible outline', async () => {
    const { page } = await stack.newPage();
    await page.goto(`${stack.web.url}/`);
    await page.locator('[data-testid="run-row"]').first().waitFor();
    // Tab past the skip link and the brand to the first link of the top navigation.
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const s = getComputedStyle(el);
      return { tag: el.tagName, style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
    });
    expect(outline.tag).toBe('A');
    expect(outline.style).not.toBe('none');
    expect(outline.width).toBeGreaterThanOrEqual(2);
    await page.close();
  });
});
