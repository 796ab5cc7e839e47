'use client';

import { useXAxisScale, useYAxisScale } from 'recharts';
import { polylinePath } from '../../lib/usl.ts';

/**
 * An SVG path through (level, qps) points placed with the chart's own scales — right on a log x
 * axis too — for lines that are not measurements (the USL fit, the open loop's offered line).
 * Null until the chart has scales, or with fewer than two drawable points.
 */
export function useScaledPath(points: ReadonlyArray<{ level: number; qps: number }>): { d: string; pixels: Array<{ x: number | undefined; y: number | undefined }> } | null {
  const x = useXAxisScale();
  const y = useYAxisScale();
  if (!x || !y || points.length < 2) return null;
  const pixels = points.map((p) => ({ x: x(p.level), y: y(p.qps) }));
  const d = polylinePath(pixels);
  return d === '' ? null : { d, pixels };
}
