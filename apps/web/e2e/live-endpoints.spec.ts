/**
 * A running endpoint mix on its page (fixture-live-names.ts): the Endpoints summary appears with
 * the first snapshot that carries the run's endpoints, follows each later one (which endpoint
 * dominates p99 moves from one name to another, one saturates first), keeps the last analysis
 * through a snapshot without it, shows a name that is markup as text, and once the run finishes
 * turns into the finished run's summary. While it runs, the endpoint selector opens a name's page,
 * whose live stream is that name's (`?name=`): its curve grows. The live run is held at chosen
 * ticks, so each check waits on what the page draws, never on time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatViolations, runAxe } from './axe.ts';
import { carriesEndpoints, HOSTILE_NAME, LIVE_NAMED_LEVELS, liveNamedRunAt, liveNamedRunNamedAt } from './fixture-live-names.ts';
import { startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ liveRun: liveNamedRunAt, liveRunNamed: liveNamedRunNamedAt, liveStepMs: 800 });
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

type Page = Awaited<ReturnType<Stack['newPage']>>['page'];
const WAIT = { timeout: 30_000 };
/** Levels drawn in the QPS chart: which snapshot the page has taken in. */
const drawn = (page: Page) => page.locator('[data-testid="qps-chart"] circle.kb-dot').evaluateAll((els) => [...new Set(els.map((e) => Number(e.getAttribute('data-level'))))]);
/** The summary's rows as drawn: each name's text, its title and its flags. */
const rows = (page: Page) =>
  page.locator('[data-testid="endpoints-summary"] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => {
      const name = tr.querySelector('.endpoint-name');
      return { name: name?.textContent ?? null, title: name?.getAttribute('title') ?? null, link: name?.tagName === 'A', flags: Array.from(tr.querySelectorAll('.endpoint-flag')).map((f) => f.textContent) };
    }),
  );
const sentence = (page: Page) => page.locator('[data-testid="endpoints-summary"] .endpoints-sentence').textContent();
/** What the fixture's snapshot at `tick` says about the endpoints. */
function expected(tick: number) {
  const e = liveNamedRunAt(tick, 0, 800).endpoints!;
  return { summary: e.summary, saturatesFirst: e.saturates_first, dominates: e.dominates_p99 };
}
/** The curve table's QPS cell at a level. */
const qpsCell = (level: number) => `[data-testid="curve-table"] tr[data-level="${level}"] td:nth-child(2)`;
const flagsOf = async (page: Page, name: string) => (await rows(page)).find((r) => r.name === name)?.flags ?? null;

describe('the Endpoints summary of a running mix', () => {
  it('appears with the first snapshot carrying endpoints, follows each one, keeps the last through one without, then settles as finished', async () => {
    // The ticks checked: which carry the endpoints, and what they say.
    expect([1, 3, 5].map(carriesEndpoints)).toEqual([true, true, true]);
    expect([0, 2].map(carriesEndpoints)).toEqual([false, false]);
    expect(expected(1).dominates).toBe(HOSTILE_NAME);
    expect(expected(5)).toMatchObject({ saturatesFirst: 'cart', dominates: 'cart' });

    stack.api.restartLive();
    stack.api.holdLiveAt(0);
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${stack.api.liveRunId}`);
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();
    await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-mode'), WAIT).toBe('stream');
    // No request named yet: no Endpoints at all, as for a run without names.
    expect(await page.getByTestId('endpoints').count()).toBe(0);

    // Level 1 finished: the summary appears, the markup-like name dominating p99, shown as text.
    stack.api.holdLiveAt(1);
    await expect.poll(() => sentence(page), WAIT).toBe(expected(1).summary);
    expect(await page.getByTestId('endpoints').getAttribute('data-live')).toBe('true');
    expect(await page.locator('#endpoints-title').textContent()).toBe('Endpoints · so far, while the run runs');
    const hostile = (await rows(page)).find((r) => r.name === HOSTILE_NAME);
    expect(hostile).toEqual({ name: HOSTILE_NAME, title: HOSTILE_NAME, link: true, flags: ['dominates p99'] });
    expect(await page.locator('[data-testid="endpoints"] img').count()).toBe(0);
    // An endpoint to pick already: its page follows that name's live stream.
    expect(await page.getByTestId('endpoint-select').inputValue()).toBe('');

    // A snapshot without names or endpoints: the level is drawn, the last analysis stays.
    stack.api.holdLiveAt(2);
    await expect.poll(() => drawn(page), WAIT).toEqual(LIVE_NAMED_LEVELS.slice(0, 3));
    expect(await sentence(page)).toBe(expected(1).summary);
    expect((await rows(page)).map((r) => r.name).sort()).toEqual(['cart', 'search', HOSTILE_NAME].sort());

    stack.api.holdLiveAt(3);
    await expect.poll(() => sentence(page), WAIT).toBe(expected(3).summary);
    expect(await flagsOf(page, HOSTILE_NAME)).toEqual(['dominates p99']);
    expect(await flagsOf(page, 'cart')).toEqual([]);

    // Past 4 cart gives out: it saturates first, and its tail overtakes.
    stack.api.holdLiveAt(5);
    await expect.poll(() => sentence(page), WAIT).toBe(expected(5).summary);
    expect(await flagsOf(page, 'cart')).toEqual(['saturates first', 'dominates p99']);
    expect(await flagsOf(page, HOSTILE_NAME)).toEqual([]);
    expect(await page.getByTestId('run-status').textContent()).toBe('running');
    await stack.screenshot(page, 'run-live-endpoints');
    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('live run page with endpoints', axe.blocking)).toEqual([]);

    // The run finishes: the finished run's summary, its names now links, and the selector.
    stack.api.setLivePaused(false);
    await expect.poll(() => page.getByTestId('run-status').textContent(), WAIT).toBe('finished');
    await expect.poll(() => sentence(page), WAIT).toBe(expected(LIVE_NAMED_LEVELS.length).summary);
    await page.getByTestId('endpoint-select').waitFor();
    expect(await page.getByTestId('endpoints').getAttribute('data-live')).toBeNull();
    expect((await rows(page)).every((r) => r.link)).toBe(true);
    expect(await page.evaluate(() => document.title)).not.toContain('pwned');
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('follows one endpoint\'s curve when the page was opened on it (?name=), not the whole run\'s', async () => {
    stack.api.restartLive();
    stack.api.holdLiveAt(3);
    const streamsBefore = stack.api.stats().namedLiveStreams.cart ?? 0;
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${stack.api.liveRunId}?name=cart`);
    await page.locator(qpsCell(4)).waitFor();
    // cart's own throughput at 4 (the whole run's is 76 req/s there).
    expect(await page.locator(qpsCell(4)).textContent()).toBe('21.0');
    // The live stream is opened with the name: its snapshots are cart's.
    await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-mode'), WAIT).toBe('stream');
    expect(stack.api.stats().namedLiveStreams.cart ?? 0).toBeGreaterThan(streamsBefore);
    expect(await page.getByTestId('endpoint-select').inputValue()).toBe('cart');
    stack.api.holdLiveAt(4);
    await expect.poll(() => drawn(page), WAIT).toEqual(LIVE_NAMED_LEVELS.slice(0, 5));
    // Still cart's after the update: 22 req/s at 8 (the whole run's 130).
    expect(await page.locator(qpsCell(8)).textContent()).toBe('22.0');
    expect(await page.locator(qpsCell(4)).textContent()).toBe('21.0');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('switches the live stream with the endpoint selector while the run runs: each pick\'s curve grows, a markup name as text', async () => {
    stack.api.restartLive();
    stack.api.holdLiveAt(3);
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${stack.api.liveRunId}`);
    await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-mode'), WAIT).toBe('stream');
    expect(await page.locator(qpsCell(4)).textContent()).toBe('76.0');

    // Pick cart: its page, its stream, its curve.
    const cartBefore = stack.api.stats().namedLiveStreams.cart ?? 0;
    await page.getByTestId('endpoint-select').selectOption('cart');
    await expect.poll(() => new URL(page.url()).searchParams.get('name'), WAIT).toBe('cart');
    await expect.poll(() => page.locator(qpsCell(4)).textContent(), WAIT).toBe('21.0');
    await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-mode'), WAIT).toBe('stream');
    expect(stack.api.stats().namedLiveStreams.cart ?? 0).toBeGreaterThan(cartBefore);
    stack.api.holdLiveAt(4);
    await expect.poll(() => drawn(page), WAIT).toEqual(LIVE_NAMED_LEVELS.slice(0, 5));
    expect(await page.locator(qpsCell(8)).textContent()).toBe('22.0');

    // Pick the markup-like name: sent encoded, its curve shown, nothing of it run as markup.
    const hostileBefore = stack.api.stats().namedLiveStreams[HOSTILE_NAME] ?? 0;
    await page.getByTestId('endpoint-select').selectOption(HOSTILE_NAME);
    await expect.poll(() => new URL(page.url()).searchParams.get('name'), WAIT).toBe(HOSTILE_NAME);
    await expect.poll(() => page.locator(qpsCell(8)).textContent(), WAIT).toBe('15.0');
    await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-mode'), WAIT).toBe('stream');
    expect(stack.api.stats().namedLiveStreams[HOSTILE_NAME] ?? 0).toBeGreaterThan(hostileBefore);
    stack.api.holdLiveAt(5);
    await expect.poll(() => drawn(page), WAIT).toEqual(LIVE_NAMED_LEVELS.slice(0, 6));
    expect(await page.locator(qpsCell(16)).textContent()).toBe('27.0');
    expect(await page.evaluate(() => document.title)).not.toContain('pwned');

    // Back to all requests: the whole run's stream again.
    await page.getByTestId('endpoint-select').selectOption('');
    await expect.poll(() => new URL(page.url()).searchParams.get('name'), WAIT).toBeNull();
    await expect.poll(() => page.locator(qpsCell(8)).textContent(), WAIT).toBe('130');
    await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-mode'), WAIT).toBe('stream');
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
