import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASE_IDS as R } from './fixture-releases.ts';
import { SCREENSHOT_DIR, startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ live: false, releases: true });
});

afterAll(async () => {
  await stack?.close();
});

/** Printable width of each paper size with the review's @page margins (13 mm each side), in CSS px. */
const PAPER = {
  A4: { width: Math.floor(((210 - 26) / 25.4) * 96), height: 1123 },
  Letter: { width: Math.floor(((215.9 - 26) / 25.4) * 96), height: 1056 },
} as const;

const REVIEW = `/review?base=${R.crowkisBefore}&head=${R.crowkisFix}`;
/** Seed 004's three runs, with changes up to +15,676% [+12,177…+19,318%] in the tables. */
const WIDE_REVIEW = `/review?base=${R.fusilladeBefore}&head=${R.fusilladeAfter}&head=${R.fusilladeK6}&y=log`;

async function pdfPages(pdf: Buffer): Promise<number> {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;
}

async function noOverflow(page: Page) {
  return page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
    widest: Math.max(...[...document.querySelectorAll('.review *')].map((e) => e.getBoundingClientRect().right)),
  }));
}

describe('review page', () => {
  it('prints to A4 and Letter without horizontal overflow, with the verdict, charts, tables and notes', async () => {
    const { page, errors } = await stack.newPage({ width: 1280, height: 900 });
    await page.goto(`${stack.web.url}${REVIEW}`);
    // Everything is server-rendered: the charts too (fixed size for paper).
    expect(await page.getByTestId('review-title').textContent()).toBe('crowkis: v0.2.3 vs v0.2.2');
    // A cold server (the first page after a clean build) may finish drawing after the load event: wait for the first line.
    await page.locator('[data-testid="review"] path.recharts-line-curve').first().waitFor();
    expect(await page.locator('[data-testid="review"] path.recharts-line-curve').count()).toBe(3 * 2); // throughput, p50, p99 × two runs
    expect(await page.getByTestId('verdict-banner').getAttribute('data-verdict')).toBe('improvement');
    const notes = await page.getByTestId('review-note').allTextContents();
    expect(notes[0]).toContain('Every semantic op ran the ONNX embedding inline');
    expect(notes[1]).toContain('Embeddings are cached for repeats');
    expect(await page.locator('[data-testid="review-run"]').first().textContent()).toMatch(/8ac779320aff.*roost-bench · 16 cores/);

    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('.topbar').isVisible()).toBe(false);
    expect(await page.getByTestId('print').isVisible()).toBe(false);
    for (const [format, size] of Object.entries(PAPER) as Array<[keyof typeof PAPER, (typeof PAPER)[keyof typeof PAPER]]>) {
      await page.setViewportSize(size);
      const o = await noOverflow(page);
      expect(o.scroll, `${format}: page wider than the paper`).toBeLessThanOrEqual(o.client);
      expect(o.widest, `${format}: an element sticks out`).toBeLessThanOrEqual(o.client + 0.5);

      const pdf = await page.pdf({ format, printBackground: true });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      const pages = await pdfPages(pdf);
      expect(pages, `${format}: one page per section`).toBeGreaterThanOrEqual(4);
      expect(pages).toBeLessThanOrEqual(6);
      if (format === 'A4') {
        const file = path.join(SCREENSHOT_DIR, 'review-a4.pdf');
        await writeFile(file, pdf);
        // For looking at: the first two pages as images, when poppler's pdftoppm is installed.
        if (existsSync('/usr/bin/pdftoppm')) spawnSync('/usr/bin/pdftoppm', ['-r', '80', '-png', '-f', '1', '-l', '2', file, path.join(SCREENSHOT_DIR, 'review-a4-page')]);
      }
    }
    // The kept picture of the review (README): the printed layout at A4 width.
    await page.setViewportSize(PAPER.A4);
    await stack.screenshot(page, 'review');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('fits three runs and their widest numbers on Letter and A4 too', async () => {
    const { page, errors } = await stack.newPage({ ...PAPER.Letter });
    await page.goto(`${stack.web.url}${WIDE_REVIEW}`);
    expect(await page.getByTestId('delta-table').count()).toBe(2);
    await page.emulateMedia({ media: 'print' });
    for (const size of [PAPER.Letter, PAPER.A4]) {
      await page.setViewportSize(size);
      const o = await noOverflow(page);
      expect(o.scroll).toBeLessThanOrEqual(o.client);
      expect(o.widest).toBeLessThanOrEqual(o.client + 0.5);
      // No cell's text runs into the next column.
      const spill = await page.locator('[data-testid="delta-table"] td').evaluateAll((cells) =>
        cells.filter((td) => [...td.querySelectorAll('span')].some((s) => s.getBoundingClientRect().right > td.getBoundingClientRect().right + 0.5)).length,
      );
      expect(spill).toBe(0);
    }
    // The Verdict section (one banner per head, each stating its noise basis and method, then the
    // runs) fits one Letter page inside the @page margins (14 mm top and bottom): 991 px spilled a
    // sixth page when the banners' text grew.
    await page.setViewportSize(PAPER.Letter);
    const verdictHeight = await page.locator('.review-section').first().evaluate((e) => e.getBoundingClientRect().height);
    expect(verdictHeight).toBeLessThanOrEqual(PAPER.Letter.height - Math.ceil(((2 * 14) / 25.4) * 96));
    expect(await page.getByTestId('verdict-method').count()).toBe(2);
    const pdf = await page.pdf({ format: 'Letter', printBackground: true });
    // Four pages of charts and tables, and a fifth for the notes under the tables saying why every
    // level of seed 004's v1.6.1 is not comparable (its agent was the ceiling).
    expect(await pdfPages(pdf)).toBe(5);
    expect(errors).toEqual([]);
    await page.close();
  });
});
