/**
 * The connections each level opened and their TLS handshake times, in the run page's level panel:
 * figures as the agent reported them, a sentence where handshakes are a large share of the level's
 * latency, nothing for a step whose agent did not count its connections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatViolations, runAxe } from './axe.ts';
import { CONNECTIONS_RUN_ID, connectionsRun } from './fixture-connections.ts';
import { FIXTURE_IDS } from './fixture-data.ts';
import { SCREENSHOT_DIR, startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ live: false });
  stack.api.addRun(connectionsRun(Date.now()));
});

afterAll(async () => {
  await stack?.close();
});

describe("a level's connections and TLS handshakes (run page)", () => {
  it('flags the level that reconnects for every other request, in words, axe clean', async () => {
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${CONNECTIONS_RUN_ID}?level=32`);
    const box = page.getByTestId('level-panel').getByTestId('level-connections');
    await box.waitFor();
    expect(await box.getByTestId('level-connections-opened').textContent()).toBe('connections opened 6,000');
    expect(await box.getByTestId('level-handshakes').textContent()).toBe('TLS handshake p50 12.5 ms, p99 31.0 ms, max 48.0 ms');
    // 6,000 handshakes of ~12.5 ms against 12,000 requests of ~26 ms: about a fifth of the time.
    expect(await box.getByTestId('level-handshake-flag').textContent()).toMatch(
      /^Handshake-bound: TLS handshakes are about (1\d|2\d)% of this level's request time \(a new connection every 2 requests\): the curve here measures reconnecting more than the service — check keep-alive on the target\.$/,
    );

    const axe = await runAxe(page);
    expect(axe.blocking, formatViolations('run page with a handshake-bound level open', axe.blocking)).toEqual([]);
    await box.scrollIntoViewIfNeeded();
    await page.getByTestId('level-panel').screenshot({ path: `${SCREENSHOT_DIR}/level-connections.png` });
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('shows a keep-alive level without a flag, and nothing for a step whose agent sent no connections', async () => {
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${CONNECTIONS_RUN_ID}?level=8`);
    const box = page.getByTestId('level-panel').getByTestId('level-connections');
    await box.waitFor();
    expect(await box.getByTestId('level-connections-opened').textContent()).toBe('connections opened 8');
    expect(await box.getByTestId('level-handshakes').textContent()).toBe('TLS handshake p50 1.80 ms, p99 4.20 ms, max 5.10 ms');
    expect(await box.getByTestId('level-handshake-flag').count()).toBe(0);

    await page.locator('[data-testid="curve-table"] tr[data-level="16"] [data-testid="open-level"]').click();
    await expect.poll(() => page.getByTestId('level-panel').getAttribute('data-level')).toBe('16');
    await page.getByTestId('level-panel').getByTestId('level-latency-table').waitFor();
    expect(await page.getByTestId('level-connections').count()).toBe(0);

    // The curve table's two columns: per level, a dash where the agent sent nothing or timed no handshake.
    const cells = (level: number) => page.locator(`[data-testid="curve-table"] tr[data-level="${level}"]`);
    expect(await cells(8).getByTestId('connections-opened').textContent()).toBe('8');
    expect(await cells(8).getByTestId('connections-handshake').textContent()).toBe('1.80 / 4.20');
    expect(await cells(16).getByTestId('connections-opened').textContent()).toBe('—');
    expect(await cells(16).getByTestId('connections-handshake').textContent()).toBe('—');
    expect(await cells(32).getByTestId('connections-opened').textContent()).toBe('6,000');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('adds no column to a run whose agent reported no connections', async () => {
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}/runs/${FIXTURE_IDS.seed}`);
    await page.locator('[data-testid="curve-table"] tr[data-level="4"]').waitFor();
    expect(await page.getByTestId('connections-head').count()).toBe(0);
    expect(await page.getByTestId('connections-opened').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});
