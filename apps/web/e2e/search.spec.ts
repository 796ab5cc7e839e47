/**
 * A `--search` run on its page, live then finished (fixture-search.ts: the real planner's levels
 * and the API's own replay of them): the Search panel lists the levels tried in order with their
 * verdict in words, the bracket and the best answer so far, and the level being measured; as the
 * run goes on the bracket narrows to (9, 10] and the search says why it stopped. axe clean, no
 * overflow at 390 px.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunDetail } from '@kneeboard/contracts';
import { formatViolations, runAxe } from './axe.ts';
import { SEARCH_LEVELS, searchRunAt } from './fixture-search.ts';
import { overflow } from './overflow.ts';
import { SCREENSHOT_DIR, startStack, type Stack } from './stack.ts';

/** Long enough that the page is seen between levels on a busy box. */
const STEP_MS = 800;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ liveRun: searchRunAt, liveStepMs: STEP_MS });
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

type Page = Awaited<ReturnType<Stack['newPage']>>['page'];
const tried = (page: Page) =>
  page.locator('[data-testid="search-levels"] li').evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-level')), e.getAttribute('data-judgement'), e.getAttribute('data-end')]));

describe('the Search panel of a --search run', () => {
  it('shows the levels tried, the bracket narrowing and the best answer as the search goes, then why it stopped', async () => {
    expect(SEARCH_LEVELS).toEqual([2, 4, 8, 10, 9]);
    stack.api.restartLive();
    // Held at its first level until the page has had its first look (a loaded box can take longer
    // to load the page than the search takes to run), then let go and held again mid-search.
    stack.api.setLivePaused(true);
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${stack.api.liveRunId}`);
    const panel = page.getByTestId('search');
    await panel.waitFor();
    await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-mode'), { timeout: 20_000 }).toBe('stream');
    stack.api.setLivePaused(false);
    await expect.poll(async () => (await tried(page)).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
    stack.api.setLivePaused(true);
    // Where it was held, as the API serves it; the page shows just that once the stream delivered it.
    const held = RunDetail.parse(await (await fetch(`${stack.api.url}/api/v1/runs/${stack.api.liveRunId}`)).json());
    if (held.run.status === 'running') {
      const n = held.search!.tried.length;
      await expect.poll(async () => (await tried(page)).length, { timeout: 10_000 }).toBe(n);
      expect((await tried(page)).map(([level]) => level)).toEqual(SEARCH_LEVELS.slice(0, n));
      expect(await page.getByTestId('search-status').textContent()).toBe(`Next: concurrency ${SEARCH_LEVELS[n]} — measuring ${SEARCH_LEVELS[n]}`);
      // 2, 4 and 8 hold: the best so far is 8, with no bound until 10 breaks, then the bracket is (8, 10].
      expect(await page.getByTestId('search-best').textContent()).toMatch(/^Best so far: [\d,.]+ req\/s at concurrency 8$/);
      expect(await page.getByTestId('search-bracket').textContent()).toBe(n === 3 ? 'Bracket: holds up to 8, no bound yet' : 'Bracket: holds at 8, bounded at 10');
      expect(await panel.getAttribute('data-done')).toBe('false');
      await panel.screenshot({ path: path.join(SCREENSHOT_DIR, 'search-panel-live.png') });
    }

    stack.api.setLivePaused(false);
    // The whole search arrives: 10 broke, 9 held, so the bracket is (9, 10] and the search says so.
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: SEARCH_LEVELS.length * STEP_MS + 15_000 }).toBe('finished');
    await expect.poll(() => tried(page), { timeout: 10_000 }).toEqual([
      [2, 'holds', null],
      [4, 'holds', null],
      [8, 'holds', null],
      [10, 'breaks', 'breaks'],
      [9, 'holds', 'holds'],
    ]);
    expect(await page.getByTestId('search-bracket').textContent()).toBe('Bracket: holds at 9, bounded at 10');
    expect(await page.getByTestId('search-best').textContent()).toMatch(/^Best so far: [\d,.]+ req\/s at concurrency 9$/);
    expect(await page.getByTestId('search-status').textContent()).toBe('Done: bracketed: holds at 9, an SLO breaks at 10');
    expect(await panel.getAttribute('data-done')).toBe('true');
    // Every verdict is in words, not colour alone.
    expect(await page.locator('[data-testid="search-levels"] li[data-level="10"]').textContent()).toContain('breaks');

    await panel.screenshot({ path: path.join(SCREENSHOT_DIR, 'search-panel.png') });
    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('run page with a search', axe.blocking)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();

    const { page: phone } = await stack.newPage({ width: 390, height: 844 });
    await phone.goto(`${stack.web.url}/runs/${stack.api.liveRunId}`);
    await phone.getByTestId('search').waitFor();
    expect((await tried(phone)).length).toBe(SEARCH_LEVELS.length);
    await phone.getByTestId('search').screenshot({ path: path.join(SCREENSHOT_DIR, 'search-panel-390.png') });
    expect((await overflow(phone)).culprits).toEqual([]);
    await phone.close();
  }, 120_000);
});
