import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The web app imports this package's palette into the browser bundle, so its sources may import
 * only each other, the two d3 pieces it lists, the chart preparation it shares with the page and
 * contracts' figures (both browser-safe): a Node import here would break the page's build.
 */
describe('browser safety', () => {
  const dir = new URL('../src/', import.meta.url);
  const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

  it('imports nothing but its own files, d3-scale, d3-shape, @kneeboard/chart-prep and contracts\' figures', () => {
    expect(sources.length).toBeGreaterThan(3);
    for (const file of sources) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      const specifiers = [...text.matchAll(/\bfrom\s+'([^']+)'|\bimport\s*\(?\s*'([^']+)'/g)].map((m) => m[1] ?? m[2]);
      for (const s of specifiers) expect(s, `${file} imports ${s}`).toMatch(/^(\.\/|d3-scale$|d3-shape$|@kneeboard\/chart-prep$|@kneeboard\/contracts\/figures$)/);
    }
  });
});
