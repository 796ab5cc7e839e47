'use client';

import type { UslCurvePoint } from '@kneeboard/contracts';
import { ZIndexLayer } from 'recharts';
import { USL_SERIES } from '../../lib/series.ts';
import { useScaledPath } from './use-scaled-path.ts';

/** Under the measured line (400): the fit is context for the measurements, not the other way round. */
const USL_Z = 380;

/**
 * The fitted USL throughput as a dashed line. Its points are at levels that were never swept, so
 * they are placed with the chart's own x scale (numeric, linear or log) rather than fed to the
 * chart as rows: rows would give the tooltip fifty fitted "levels" to snap to. `data-first-x` and
 * `data-last-x` let tests check the line starts and ends at the first and last measured level.
 */
export function UslCurve({
  points,
  colour = USL_SERIES.color,
  series,
  strokeWidth = 2.25,
  dash = USL_SERIES.dash,
  opacity = 1,
}: {
  points: ReadonlyArray<UslCurvePoint>;
  /** A comparison draws one fit per run, in the run's colour. */
  colour?: string;
  series?: string;
  strokeWidth?: number;
  /** On a comparison dashes mean "the base", so fits are dotted there. */
  dash?: string;
  opacity?: number;
}) {
  const path = useScaledPath(points);
  if (!path) return null;
  const { d, pixels } = path;
  return (
    <ZIndexLayer zIndex={USL_Z}>
      <path
        className="kb-usl"
        d={d}
        fill="none"
        stroke={colour}
        strokeWidth={strokeWidth}
        strokeDasharray={dash}
        strokeOpacity={opacity}
        strokeLinejoin="round"
        data-points={points.length}
        data-series={series}
        data-first-x={pixels[0]?.x}
        data-last-x={pixels[pixels.length - 1]?.x}
        pointerEvents="none"
      />
    </ZIndexLayer>
  );
}
