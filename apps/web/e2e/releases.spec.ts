import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASE_IDS as R } from './fixture-releases.ts';
import { pathOf, startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ live: false, releases: true });
});

afterAll(async () => {
  await stack?.close();
});


describe('releases', () => {
  it('lists a service’s runs by release, newest first, and compares with the previous release in one click', async () => {
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/`);
    // The runs list links each service to its releases.
    await page.locator('[data-testid="run-row"] a[href="/services/fusillade"]').first().click();
    await page.waitForURL(/\/services\/fusillade$/);

    const releases = page.getByTestId('release');
    expect(await releases.evaluateAll((els) => els.map((e) => e.getAttribute('data-release')))).toEqual(['k6-v0.52.0', 'v1.6.2', 'v1.6.1']);
    const v162 = page.locator('[data-testid="release"][data-release="v1.6.2"]');
    expect(await v162.getByTestId('release-run').evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')))).toEqual([R.fusilladeAfterAborted, R.fusilladeAfter]);
    expect(await v162.textContent()).toContain('fix');
    expect(await page.locator('[data-testid="release"][data-release="v1.6.1"] [data-testid="compare-previous"]').count()).toBe(0);
    // The trend of peak throughput across the three releases, oldest first, one point each.
    const trend = page.getByTestId('release-trend');
    expect(await trend.getAttribute('data-points')).toBe('3');
    expect(await trend.locator('.recharts-line-dot').count()).toBe(3);
    expect(await trend.locator('.recharts-cartesian-axis-tick-value').allTextContents()).toEqual(expect.arrayContaining(['v1.6.1', 'v1.6.2', 'k6-v0.52.0']));
    await stack.screenshot(page, 'service');

    // The newest *finished* run of v1.6.2 (not the newer aborted one) against v1.6.1's.
    const button = v162.getByTestId('compare-previous');
    expect(await button.textContent()).toBe('Compare with v1.6.1');
    await button.click();
    await page.waitForURL(/\/compare\?/);
    expect(pathOf(page)).toBe(`/compare?base=${R.fusilladeBefore}&head=${R.fusilladeAfter}`);
    await page.locator('[data-testid="overlay-qps"] circle.kb-dot').first().waitFor();
    expect(await page.getByTestId('compare-title').textContent()).toBe('fusillade: v1.6.2 vs v1.6.1');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('labels and annotates a run from its page, and the review prints the note', async () => {
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}/runs/${R.crowkisFix}`);
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();
    const labels = () => page.locator('[data-testid="run-labels"] .chip').evaluateAll((els) => els.map((e) => e.getAttribute('data-label')));
    expect(await labels()).toEqual(['fix', 'embedding deferral']);

    await page.getByTestId('label-input').fill('  release candidate ');
    await page.getByTestId('add-label').click();
    await expect.poll(labels).toEqual(['fix', 'embedding deferral', 'release candidate']);
    await page.getByRole('button', { name: 'remove label fix' }).click();
    await expect.poll(labels).toEqual(['embedding deferral', 'release candidate']);

    const note = 'Checked on the 16-core bench: the repeat path is 70× faster.\nThe actor is next.';
    await page.getByTestId('edit-note').click();
    await page.getByTestId('note-input').fill(note);
    await page.getByTestId('save-note').click();
    await expect.poll(() => page.getByTestId('note-text').textContent()).toBe(note);
    const patches = stack.api.stats().review.patches.filter((p) => p.id === R.crowkisFix);
    expect(patches.map((p) => p.body)).toEqual([{ labels: ['fix', 'embedding deferral', 'release candidate'] }, { labels: ['embedding deferral', 'release candidate'] }, { note }]);

    // Stored: a fresh page shows it, and so does the review.
    const { page: review } = await stack.newPage();
    await review.goto(`${stack.web.url}/review?base=${R.crowkisBefore}&head=${R.crowkisFix}`);
    const card = review.locator(`[data-testid="review-run"][data-run-id="${R.crowkisFix}"]`);
    expect(await card.getByTestId('review-note').textContent()).toContain('the repeat path is 70× faster');
    expect(await card.textContent()).toContain('release candidate');
    expect(errors).toEqual([]);
    await review.close();
    await page.close();
  });

  it('keeps the run page’s toggles in its URL, so a link reopens the same view', async () => {
    const view = `/runs/${R.crowkisFix}?metrics=p50,p999&x=linear&y=log&fit=0&levels=2-16`;
    const { page, errors } = await stack.newPage();
    await page.goto(`${stack.web.url}${view}`);
    const dots = (series: string) =>
      page.locator(`[data-testid="latency-chart"] circle.kb-dot[data-series="${series}"]`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-level'))));
    await page.locator('[data-testid="qps-chart"] circle.kb-dot').first().waitFor();
    expect(await dots('p50_ms')).toEqual([2, 4, 8, 16]);
    expect(await dots('p999_ms')).toEqual([2, 4, 8, 16]);
    expect(await dots('p99_ms')).toEqual([]);
    expect(await page.locator('[data-testid="x-scale"] button[aria-pressed="true"]').textContent()).toBe('linear');
    expect(await page.locator('[data-testid="y-scale"] button[aria-pressed="true"]').textContent()).toBe('log');
    expect(await page.getByTestId('toggle-usl').locator('input').isChecked()).toBe(false);
    expect(await page.locator('[data-testid="curve-table"] tbody tr').count()).toBe(4);
    expect(pathOf(page)).toBe(view);

    await page.getByTestId('toggle-usl').locator('input').check();
    await page.getByTestId('level-from').selectOption('1');
    await expect.poll(() => pathOf(page)).toBe(`/runs/${R.crowkisFix}?metrics=p50,p999&x=linear&y=log&fit=1&levels=-16`);
    // The fitted line keeps to the levels shown.
    const fitEnd = Number(await page.locator('[data-testid="qps-chart"] path.kb-usl').getAttribute('data-last-x'));
    const dotX = async (level: number) => Number(await page.locator(`[data-testid="qps-chart"] circle.kb-dot[data-level="${level}"]`).getAttribute('cx'));
    expect(fitEnd).toBeLessThanOrEqual((await dotX(16)) + 0.5);
    expect(fitEnd).toBeGreaterThan(await dotX(8));
    expect(errors).toEqual([]);
    await page.close();
  });
});
