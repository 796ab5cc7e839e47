import type { KneeMark } from './compare-series.ts';

/** A comparison's knee mark: half its base, its height, the gap between stacked marks. A full triangle, not a flat sliver that reads as cut. */
export const KNEE_MARK = { HALF: 6, HEIGHT: 9, GAP: 2 } as const;

/** The usual top margin of a curve chart (components/run/chart-style.ts CHART_MARGIN.top). */
const BASE_TOP = 26;

/**
 * The top margin a chart needs so that its highest stack of knee marks (several runs with their
 * knee at one level) is whole inside the SVG — on the page, in print and in the exported files,
 * which are copies of this SVG.
 */
export function kneeMarginTop(marks: ReadonlyArray<KneeMark>, base = BASE_TOP): number {
  const perLevel = new Map<number, number>();
  for (const m of marks) perLevel.set(m.level, (perLevel.get(m.level) ?? 0) + 1);
  const deepest = Math.max(0, ...perLevel.values());
  const { HEIGHT, GAP } = KNEE_MARK;
  return deepest === 0 ? base : Math.max(base, GAP + deepest * (HEIGHT + GAP) + 4);
}
