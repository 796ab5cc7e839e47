import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_IDS, point, run, uuid, withAnalysis } from './fixture-data.ts';
import { freePort, startNextApp } from './next-app.ts';
import { launchChromium } from './browser.ts';
import { startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ liveStepMs: 60_000 });
});

afterAll(async () => {
  await stack?.close();
});

describe('runs list', () => {
  it('lists every run newest first, with the running one marked live', async () => {
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/`);
    const rows = page.getByTestId('run-row');
    await rows.first().waitFor();
    const ids = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')));
    expect(ids).toEqual([FIXTURE_IDS.live, FIXTURE_IDS.seed, FIXTURE_IDS.generatorLimited, FIXTURE_IDS.noisy, FIXTURE_IDS.wide, FIXTURE_IDS.aborted]);
    const statuses = await page.getByTestId('run-status').allTextContents();
    expect(statuses).toEqual(['running', 'finished', 'finished', 'finished', 'finished', 'aborted']);
    expect(await rows.first().locator('.pulse').count()).toBe(1);
    const seedRow = await rows.nth(1).textContent();
    expect(seedRow).toContain('vector-search');
    expect(seedRow).toContain('v0.2.0');
    expect(await rows.nth(1).locator('td').allTextContents()).toContain('103'); // peak QPS, a cell of its own
    await stack.screenshot(page, 'runs-list');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('filters by service and release through the URL, and a row opens its run', async () => {
    const { page } = await stack.newPage();
    await page.goto(`${stack.web.url}/`);
    await page.locator('select[name="service"]').selectOption('checkout-api');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/service=checkout-api/);
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(2);

    await page.goto(`${stack.web.url}/?service=checkout-api&release=v2.3.1`);
    const rows = page.getByTestId('run-row');
    expect(await rows.count()).toBe(1);
    await rows.first().click();
    await page.waitForURL(new RegExp(`/runs/${FIXTURE_IDS.wide}$`));
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();

    await page.goto(`${stack.web.url}/?service=nothing-here`);
    await page.getByTestId('runs-empty').waitFor();
    expect(await page.getByTestId('runs-empty').textContent()).toContain('No runs match');
    await page.close();
  });

  // Last in this block: it adds a run to the fixture, which the tests above list exactly.
  it('shows a run started after the page opened, without a reload (live refresh)', async () => {
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/`);
    await page.getByTestId('run-row').first().waitFor();
    let loads = 0;
    page.on('load', () => loads++);
    const before = stack.api.stats().listGets;

    const id = uuid(0x7e57);
    stack.api.addRun(
      withAnalysis({
        run: run({ id, service: 'fresh-svc', release: 'v9.9.9', name: 'started while you watched', created_at: Date.now(), status: 'running', finished_at: null }),
        steps: [],
        curve: [point(1, { qps: 50, p50_ms: 20, in_progress: true })],
      }),
    );
    // The list refreshes every 3 s while a run is running; wait for the row, not for a fixed time.
    const row = page.locator(`[data-testid="run-row"][data-run-id="${id}"]`);
    await row.waitFor({ timeout: 40_000 });
    expect(await page.getByTestId('run-row').first().getAttribute('data-run-id')).toBe(id);
    expect(await row.textContent()).toContain('fresh-svc');
    expect(await row.getByTestId('run-status').textContent()).toBe('running');
    // It came by the page asking the API again, with no navigation or reload.
    expect(stack.api.stats().listGets).toBeGreaterThan(before);
    expect(loads).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('runs list with no runs', () => {
  it('tells the user how to start a sweep', async () => {
    const empty = await startStack({ runs: [], live: false });
    try {
      const { page } = await empty.newPage();
      await page.goto(`${empty.web.url}/`);
      const notice = page.getByTestId('runs-empty');
      await notice.waitFor();
      const text = await notice.textContent();
      expect(text).toContain('No runs yet');
      expect(text).toContain('pnpm kneeboard sweep --target');
      expect(text).toContain('--levels 1,2,4,8,16');
      await empty.screenshot(page, 'runs-empty');
      await page.close();
    } finally {
      await empty.close();
    }
  });
});

describe('runs list without an API', () => {
  it('says which API URL it tried and how to point the app elsewhere', async () => {
    const deadApi = `http://127.0.0.1:${await freePort()}`;
    const web = await startNextApp({ apiUrl: deadApi });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${web.url}/`);
      const notice = page.getByTestId('api-error');
      await notice.waitFor();
      const text = await notice.textContent();
      expect(text).toContain(deadApi);
      expect(text).toContain('KNEEBOARD_API_URL');
    } finally {
      await browser.close();
      await web.close();
    }
  });
});
