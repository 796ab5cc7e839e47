'use client';

import type { UslCurvePoint } from '@kneeboard/contracts';
import { ZIndexLayer } from 'recharts';
import { USL_SERIES } from '../../lib/series.ts';
import { useScaledPath } from './use-scaled-path.ts';

/** Under the measured line (400): the fit is context for the measurements, not the other way round. */
const USL_Z = 380;
/** A fit the analysis does not trust, drawn only because the reader asked: dotted and faint, never read as a prediction. */
const UNTRUSTED = { dash: '2 5', opacity: 0.55 } as const;

/**
 * The fitted USL throughput as a dashed line. Its points are at levels that were never swept, so
 * they are placed with the chart's own x scale (numeric, linear or log) rather than fed to the
 * chart as rows: rows would give the tooltip fifty fitted "levels" to snap to. `data-first-x` and
 * `data-last-x` let tests check the line starts and ends at the first and last measured level.
 * `trusted={false}` (the analysis' `usl_trusted`) draws it dotted and faint: the fit panel says why.
 */
export function UslCurve({
  points,
  colour = USL_SERIES.color,
  series,
  strokeWidth = 2.25,
  dash = USL_SERIES.dash,
  opacity = 1,
  trusted = true,
}: {
  points: ReadonlyArray<UslCurvePoint>;
  /** A comparison draws one fit per run, in the run's colour. */
  colour?: string;
  series?: string;
  strokeWidth?: number;
  /** On a comparison dashes mean "the base", so fits are dotted there. */
  dash?: string;
  opacity?: number;
  /** The analysis' `usl_trusted`: an untrusted fit is marked as such wherever it is drawn. */
  trusted?: boolean;
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
        strokeDasharray={trusted ? dash : UNTRUSTED.dash}
        strokeOpacity={trusted ? opacity : opacity * UNTRUSTED.opacity}
        strokeLinejoin="round"
        data-points={points.length}
        data-series={series}
        data-first-x={pixels[0]?.x}
        data-last-x={pixels[pixels.length - 1]?.x}
        data-trusted={trusted}
        pointerEvents="none"
      />
    </ZIndexLayer>
  );
}
