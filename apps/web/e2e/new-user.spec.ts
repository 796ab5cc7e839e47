/**
 * What a first-time user tripped over, at 1440×900 and 390×844: nothing wider than the screen on
 * any page and state (a level open too), the runs list as cards on a phone, the review's charts
 * showing every level on a phone, knee marks inside their charts (and the exported PNG's SVG),
 * the run timeline, axe clean.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunTimeline } from '@kneeboard/contracts';
import { runAxe } from './axe.ts';
import { FIXTURE_IDS } from './fixture-data.ts';
import { RELEASE_IDS as R } from './fixture-releases.ts';
import { overflow } from './overflow.ts';
import { SCREENSHOT_DIR, startStack, type Stack } from './stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ releases: true, liveStepMs: 700 });
});
afterAll(async () => {
  await stack?.close();
});

const SCREENS = [
  { name: '1440', width: 1440, height: 900 },
  { name: '390', width: 390, height: 844 },
] as const;
const COMPARE = `/compare?base=${R.fusilladeBefore}&head=${R.fusilladeAfter}&head=${R.fusilladeK6}`;
const REVIEW = COMPARE.replace('/compare', '/review');
/** Seed 000's crowkis runs: small enough that opening a level's detail is quick in the fixture. */
const COMPARE_SMALL = `/compare?base=${R.crowkisBefore}&head=${R.crowkisFix}`;
const DOT = '[data-testid="qps-chart"] circle.kb-dot';

const PAGES = [
  { name: 'runs-list', path: '/', ready: '[data-testid="run-row"]' },
  { name: 'run', path: `/runs/${FIXTURE_IDS.seed}`, ready: DOT },
  { name: 'run-level-open', path: `/runs/${FIXTURE_IDS.seed}?level=8`, ready: '[data-testid="level-latency-table"]' },
  { name: 'run-open-loop', path: `/runs/${FIXTURE_IDS.aborted}`, ready: DOT },
  { name: 'compare', path: COMPARE, ready: '[data-testid="overlay-qps"] circle.kb-dot' },
  { name: 'compare-level-open', path: `${COMPARE_SMALL}&level=8`, ready: '[data-testid="compare-level-table"]' },
  { name: 'services', path: '/services', ready: 'main h1' },
  { name: 'service', path: '/services/fusillade', ready: '[data-testid="select-run"]' },
  { name: 'review', path: REVIEW, ready: '[data-testid="verdict-banner"]' },
];

async function open(page: Page, path: string, ready: string) {
  await page.goto(`${stack.web.url}${path}`);
  await page.locator(ready).first().waitFor();
  await page.waitForTimeout(300);
}

/** Every knee mark's box against its own SVG's box: a mark sticking out is drawn cut. */
async function kneesOutside(page: Page) {
  return page.evaluate(() => {
    const out: string[] = [];
    let seen = 0;
    for (const mark of Array.from(document.querySelectorAll('.kb-run-knee, .kb-knee-tag'))) {
      const svg = mark.closest('svg');
      if (!svg) continue;
      seen++;
      const m = mark.getBoundingClientRect();
      const s = svg.getBoundingClientRect();
      if (m.top < s.top - 0.5 || m.left < s.left - 0.5 || m.right > s.right + 0.5 || m.bottom > s.bottom + 0.5) out.push(`${mark.getAttribute('class')} ${mark.getAttribute('data-series') ?? ''} top=${m.top - s.top}`);
      // A comparison's mark is a whole triangle, not a flat sliver that reads as one cut in half.
      if (mark.classList.contains('kb-run-knee') && m.height < 0.7 * m.width) out.push(`${mark.getAttribute('data-series')} flat ${m.width.toFixed(1)}×${m.height.toFixed(1)}`);
    }
    return { seen, out };
  });
}

for (const screen of SCREENS) {
  describe(`at ${screen.width}×${screen.height}`, () => {
    for (const p of PAGES) {
      it(`${p.name}: nothing wider than the screen, knee marks inside their charts, axe clean`, async () => {
        const { page, errors } = await stack.newPage(screen);
        await open(page, p.path, p.ready);
        await stack.screenshot(page, `new-user-${p.name}-${screen.name}`);
        const o = await overflow(page);
        expect(o.scrollWidth, o.culprits.join('\n')).toBeLessThanOrEqual(screen.width);
        const knees = await kneesOutside(page);
        expect(knees.out).toEqual([]);
        const axe = await runAxe(page);
        expect(axe.blocking.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
        expect(errors).toEqual([]);
        await page.close();
      });
    }
  });
}

describe('knee marks', () => {
  it('sit inside the comparison and review charts, stacked knees included, and inside the exported SVG', async () => {
    const { page } = await stack.newPage({ width: 1440, height: 900 });
    await open(page, COMPARE, '[data-testid="overlay-qps"] circle.kb-dot');
    const knees = await kneesOutside(page);
    expect(knees.seen).toBeGreaterThan(0);
    expect(knees.out).toEqual([]);
    // The downloaded SVG (what the PNG is drawn from): its knee marks inside its own viewport.
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid="overlay-qps"] button', { hasText: 'SVG' }).first().click()]);
    const svg = await readFile((await download.path()) as string, 'utf8');
    const inFile = await page.evaluate((markup) => {
      const holder = document.createElement('div');
      holder.style.position = 'absolute';
      holder.style.left = '0';
      holder.style.top = '0';
      holder.innerHTML = markup;
      document.body.append(holder);
      const root = holder.querySelector('svg') as SVGSVGElement;
      const r = root.getBoundingClientRect();
      const marks = [...root.querySelectorAll('.kb-run-knee')].map((m) => m.getBoundingClientRect());
      holder.remove();
      return { marks: marks.length, outside: marks.filter((m) => m.top < r.top - 0.5 || m.bottom > r.bottom + 0.5).length };
    }, svg);
    expect(inFile.marks).toBeGreaterThan(0);
    expect(inFile.outside).toBe(0);
    await page.close();
  });
});

describe('runs list on a phone', () => {
  it('shows each run as a card with its service, release, status and peak QPS on the first screen', async () => {
    const { page } = await stack.newPage({ width: 390, height: 844 });
    await open(page, '/', '[data-testid="run-row"]');
    const row = page.locator('[data-testid="run-row"]').nth(1);
    const box = await row.boundingBox();
    expect(box!.width).toBeLessThanOrEqual(390);
    for (const cell of ['.service-cell', '.release-cell', '.fig-peak', '.name-cell']) {
      const b = await row.locator(cell).boundingBox();
      expect(b, cell).not.toBeNull();
      expect(b!.x + b!.width, cell).toBeLessThanOrEqual(390);
    }
    expect(await row.locator('.fig-peak').evaluate((td) => getComputedStyle(td, '::after').content)).toBe('" req/s"');
    expect(await row.locator('.fig-peak').getAttribute('data-label')).toBe('peak');
    // The header row is off the screen (kept for screen readers): no column of labels wider than the card.
    expect(await page.locator('.runs-table thead').evaluate((h) => h.getBoundingClientRect().width)).toBeLessThanOrEqual(1);
    await page.close();
  });
});

describe('review on a phone', () => {
  it('draws every swept level inside the screen', async () => {
    const { page } = await stack.newPage({ width: 390, height: 844 });
    await open(page, REVIEW, '[data-testid="review"] circle.kb-dot');
    const dots = await page.locator('[data-testid="review"] [data-testid="overlay-qps"] circle.kb-dot').evaluateAll((els) => els.map((e) => ({ level: Number(e.getAttribute('data-level')), right: e.getBoundingClientRect().right })));
    const swept = new Set(stack.api.runs.filter((d) => [R.fusilladeBefore, R.fusilladeAfter, R.fusilladeK6].includes(d.run.id)).flatMap((d) => d.curve.map((p) => p.level)));
    expect(new Set(dots.map((d) => d.level))).toEqual(swept);
    expect(Math.max(...dots.map((d) => d.right))).toBeLessThanOrEqual(390);
    await page.close();
  });
});

describe('run timeline', () => {
  for (const screen of SCREENS) {
    it(`at ${screen.width} px: one point per second of the API's timeline, steps labelled by level; a click on a step opens it`, async () => {
      const { page } = await stack.newPage(screen);
      await open(page, `/runs/${FIXTURE_IDS.seed}`, '[data-testid="run-timeline"] path.recharts-line-curve');
      const api = RunTimeline.parse(await (await fetch(`${stack.api.url}/api/v1/runs/${FIXTURE_IDS.seed}/timeline`)).json());
      expect(api.points.length).toBeGreaterThan(10);
      // The requests/s line has a vertex per point, at the height of its per-second count.
      const drawn = await page.evaluate(() => {
        const chart = document.querySelector('[data-testid="timeline-throughput"]') as HTMLElement;
        const path = chart.querySelector('.kb-timeline-rps path.recharts-line-curve') as SVGPathElement;
        const vertices = (path.getAttribute('d') ?? '').match(/[ML]\s*[-\d.]+[ ,][-\d.]+/g) ?? [];
        // The value axis' tick labels (the time axis' read m:ss).
        const ticks = [...chart.querySelectorAll('text.recharts-cartesian-axis-tick-value')]
          .filter((t) => !(t.textContent ?? '').includes(':'))
          .map((t) => ({ y: Number(t.getAttribute('y')), text: t.textContent ?? '' }))
          .sort((a, b) => b.y - a.y);
        return { vertices: vertices.map((v) => Number(v.split(/[ ,]/).at(-1))), ticks };
      });
      expect(drawn.vertices.length).toBe(api.points.length);
      // Map pixels back to req/s with the axis' first and last ticks (plain numbers in the fixture's range).
      const t0 = drawn.ticks[0]!;
      const t1 = drawn.ticks.at(-1)!;
      const parse = (s: string) => Number(s.replace(/,/g, '').replace(/k$/i, 'e3'));
      const perPx = (parse(t1.text) - parse(t0.text)) / (t1.y - t0.y);
      for (const [i, y] of drawn.vertices.entries()) {
        const rps = parse(t0.text) + (y - t0.y) * perPx;
        expect(Math.abs(rps - api.points[i]!.rps), `point ${i}`).toBeLessThanOrEqual(Math.abs(perPx) * 1.5 + 1e-9);
      }
      const steps = await page.locator('[data-testid="timeline-step"]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-level'))));
      expect(steps).toEqual([...api.steps].sort((a, b) => a.started_at - b.started_at).map((s) => s.level));
      await page.getByTestId('run-timeline').screenshot({ path: `${SCREENSHOT_DIR}/new-user-timeline-${screen.name}.png` });
      await page.locator('[data-testid="timeline-step"][data-level="8"]').click();
      await page.locator('[data-testid="level-latency-table"]').waitFor();
      expect(new URL(page.url()).searchParams.get('level')).toBe('8');
      await page.close();
    });
  }

  it('grows while the run runs', async () => {
    stack.api.restartLive();
    const { page } = await stack.newPage({ width: 1440, height: 900 });
    await open(page, `/runs/${stack.api.liveRunId}`, '[data-testid="run-timeline"] path.recharts-line-curve');
    const steps = () => page.locator('[data-testid="timeline-step"]').count();
    const first = await steps();
    await expect.poll(steps, { timeout: 20_000 }).toBeGreaterThan(first);
    await page.close();
  });
});

describe('small gaps', () => {
  it('keeps the comparison’s open level in its URL, and a link with it opens the level', async () => {
    const { page } = await stack.newPage({ width: 1440, height: 900 });
    await open(page, COMPARE_SMALL, '[data-testid="overlay-qps"] circle.kb-dot');
    await page.locator('[data-testid="compare-open-level"][data-level="4"]').click();
    await page.locator('[data-testid="compare-level-table"]').waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('level')).toBe('4');
    await page.reload();
    await page.locator('[data-testid="compare-level-table"]').waitFor();
    expect(await page.locator('[data-testid="compare-open-level"][aria-pressed="true"]').getAttribute('data-level')).toBe('4');
    // Closing it takes it out of the URL again.
    await page.locator('[data-testid="compare-open-level"][data-level="4"]').click();
    await expect.poll(() => new URL(page.url()).searchParams.has('level')).toBe(false);
    await page.close();
  });

  it('downloads the deltas as CSV, one row per head and level', async () => {
    const { page } = await stack.newPage({ width: 1440, height: 900 });
    await open(page, COMPARE, '[data-testid="delta-table"]');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('delta-csv').click()]);
    expect(download.suggestedFilename()).toMatch(/deltas\.csv$/);
    const lines = (await readFile((await download.path()) as string, 'utf8')).trimEnd().split('\r\n');
    const rows = await page.locator('[data-testid="delta-table"] tbody tr[data-level]').count();
    expect(lines[0]).toMatch(/^base_release,base_run,head_release,head_run,workers,/);
    expect(lines.length - 1).toBe(rows);
    await page.close();
  });

  it('prints the review at the full width of the paper', async () => {
    const { page } = await stack.newPage({ width: 1440, height: 900 });
    await open(page, REVIEW, '[data-testid="review"] circle.kb-dot');
    await page.emulateMedia({ media: 'print' });
    for (const width of [1440, 718]) {
      await page.setViewportSize({ width, height: 1000 });
      await page.waitForTimeout(200);
      const w = await page.evaluate(() => ({
        page: document.documentElement.clientWidth,
        review: (document.querySelector('[data-testid="review"]') as HTMLElement).getBoundingClientRect().width,
        charts: [...document.querySelectorAll('[data-testid="review"] .print-charts svg.recharts-surface')].map((s) => s.getBoundingClientRect().width),
      }));
      expect(w.review, `review at ${width}`).toBeGreaterThanOrEqual(0.95 * w.page);
      expect(w.charts.length).toBeGreaterThan(0);
      for (const c of w.charts) expect(c, `chart at ${width}`).toBeGreaterThanOrEqual(0.85 * w.page);
    }
    await page.close();
  });
});
