import type { UslCurvePoint } from '@kneeboard/contracts';
import type { ScaleKind } from './scales.ts';

/** A level at the very end of the shown range still counts as inside it (fitted levels are computed, not typed). */
const EDGE = 1e-9;

/**
 * The fitted USL line to draw over the shown levels: finite points, sorted by level, from the first
 * shown level to the last (never into the axis' padding, never past a zoomed range), inside the
 * level axis' domain, and positive on a log axis (which cannot place 0). The fitted points sit at
 * levels that were not swept (about 50 of them), so they are placed by value, never by index.
 * Empty when there is no fit or no level is shown. The run page and a comparison both clip here.
 */
export function fitLine(
  curve: ReadonlyArray<UslCurvePoint>,
  xScale: ScaleKind,
  shownLevels: ReadonlyArray<number>,
  xDomain: readonly [number, number],
): UslCurvePoint[] {
  const first = shownLevels[0];
  const last = shownLevels[shownLevels.length - 1];
  if (first === undefined || last === undefined) return [];
  const lo = Math.max(xDomain[0], first * (1 - EDGE));
  const hi = Math.min(xDomain[1], last * (1 + EDGE));
  return curve
    .filter((p) => Number.isFinite(p.level) && Number.isFinite(p.qps))
    .filter((p) => (xScale === 'log' ? p.level > 0 : true))
    .filter((p) => p.level >= lo && p.level <= hi)
    .sort((a, b) => a.level - b.level);
}
