import { describe, expect, it } from 'vitest';
import type { KneeMark } from './compare-series.ts';
import { kneeMarginTop } from './knee-margin.ts';

const mark = (key: string, level: number): KneeMark => ({ key, level, colour: '#000', title: key }) as KneeMark;

describe('kneeMarginTop', () => {
  it('keeps the usual margin for one knee per level and grows with the deepest stack', () => {
    expect(kneeMarginTop([])).toBe(26);
    expect(kneeMarginTop([mark('a', 8), mark('b', 16)])).toBe(26);
    const eight = Array.from({ length: 8 }, (_, i) => mark(`r${i}`, 8));
    // 8 marks of 9 px with 2 px gaps, plus the gap above the plot and 4 px to spare: all inside the SVG.
    expect(kneeMarginTop(eight)).toBe(2 + 8 * 11 + 4);
    expect(kneeMarginTop(eight) - 2 - 7 * 11 - 9).toBeGreaterThanOrEqual(0);
  });
});
