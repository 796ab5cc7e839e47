import type { Page } from 'playwright-core';

/** How far the page is wider than its viewport, and which elements stick out past the right edge. */
export async function overflow(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const culprits: string[] = [];
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 0.5) continue;
      // Inside a scrolling wrapper (a wide table) is fine: only the wrapper counts.
      let p = el.parentElement;
      let clipped = false;
      while (p && p !== document.body) {
        const ox = getComputedStyle(p).overflowX;
        if (ox === 'auto' || ox === 'scroll' || ox === 'hidden') {
          clipped = true;
          break;
        }
        p = p.parentElement;
      }
      if (!clipped) culprits.push(`${el.tagName.toLowerCase()}.${(el.getAttribute('class') ?? '').split(' ').join('.')} right=${Math.round(r.right)}`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, culprits: culprits.slice(0, 12) };
  });
}
