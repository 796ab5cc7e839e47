import type { KneeBracket } from '@kneeboard/contracts';

/** A grid this fine (next level ≤ 1.25× the previous) already places the knee well enough. */
const FINE_GRID_RATIO = 1.25;

/**
 * Where a knee found on a grid of levels can be: above the swept level before it and at most the
 * level itself ("16" on 1, 2, 4, 8, 16 means somewhere in (8, 16]). Null when nothing was swept
 * below it. A knee between grid points (a fitted peak) gets the grid points around it.
 */
export function kneeBracket(levels: readonly number[], knee: number): KneeBracket | null {
  const sorted = [...levels].sort((a, b) => a - b);
  const high = sorted.find((l) => l >= knee);
  const below = sorted.filter((l) => l < knee);
  const low = below[below.length - 1];
  if (high === undefined || low === undefined) return null;
  return { low, high };
}

/** True when the bracket is wide enough that the grid, not the service, limits what the knee says. */
export function bracketIsCoarse(bracket: KneeBracket | null | undefined): boolean {
  return bracket != null && bracket.high / bracket.low > FINE_GRID_RATIO;
}

/** Two knees the grid cannot tell apart: equal, or each inside the other's bracket. */
export function kneesWithinGrid(a: { level: number; bracket: KneeBracket | null }, b: { level: number; bracket: KneeBracket | null }): boolean {
  if (a.level === b.level) return true;
  const inside = (level: number, br: KneeBracket | null) => br !== null && level > br.low && level <= br.high;
  return inside(a.level, b.bracket) || inside(b.level, a.bracket);
}

/**
 * Levels to add inside a bracket so the knee can be placed closer: `count` points spaced evenly on
 * a log scale strictly between its ends, rounded to whole numbers where levels are counts (a
 * concurrency of 11.3 cannot be run), without repeats.
 */
export function levelsInside(bracket: KneeBracket, count = 3, wholeNumbers = true): number[] {
  const out = new Set<number>();
  const ratio = bracket.high / bracket.low;
  for (let i = 1; i <= count; i++) {
    const raw = bracket.low * ratio ** (i / (count + 1));
    const level = wholeNumbers ? Math.round(raw) : Number(raw.toPrecision(3));
    if (level > bracket.low && level < bracket.high) out.add(level);
  }
  return [...out].sort((a, b) => a - b);
}
