import type { UslCurvePoint } from '@kneeboard/contracts';
import { uslThroughput, type UslParams } from './usl.ts';

export const USL_CURVE_POINTS = 50;

/**
 * Fitted throughput at ~50 levels across the measured range, for drawing. Sweeps are usually
 * geometric (1, 2, 4 … 512) and drawn on a log axis, so wide ranges are sampled geometrically
 * and narrow ones linearly; the peak N* is added when it falls inside, so the drawn curve
 * reaches the true maximum instead of cutting under it.
 */
export function uslCurve(p: UslParams, minLevel: number, maxLevel: number, peakLevel: number | null): UslCurvePoint[] {
  if (!(minLevel > 0) || !(maxLevel > minLevel)) return [];
  const n = USL_CURVE_POINTS;
  const geometric = maxLevel / minLevel >= 4;
  const levels: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = i / (n - 1);
    levels.push(geometric ? minLevel * (maxLevel / minLevel) ** t : minLevel + (maxLevel - minLevel) * t);
  }
  levels[n - 1] = maxLevel;
  if (peakLevel !== null && peakLevel > minLevel && peakLevel < maxLevel) {
    levels.push(peakLevel);
    levels.sort((a, b) => a - b);
  }
  return levels.map((level) => ({ level, qps: uslThroughput(level, p) }));
}

/**
 * Fitted throughput at each level the curve has (in-progress levels included, once each, sorted),
 * so a reader can set the model beside every measurement without evaluating the USL itself.
 * Levels of 0 or less have no fitted value and are left out.
 */
export function uslAtLevels(p: UslParams, levels: ReadonlyArray<number>): UslCurvePoint[] {
  const distinct = [...new Set(levels)].filter((level) => level > 0).sort((a, b) => a - b);
  return distinct.map((level) => ({ level, qps: uslThroughput(level, p) }));
}
