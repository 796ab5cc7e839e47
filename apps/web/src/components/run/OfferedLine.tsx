'use client';

import { ZIndexLayer } from 'recharts';
import { useScaledPath } from './use-scaled-path.ts';

/** Under the fit (380) and the measured line (400): a reference, not a measurement. */
const OFFERED_Z = 360;
export const OFFERED_COLOUR = '#8a929c';

/**
 * The open loop's "offered = achieved" line (y = x), thin and grey, labelled `offered` at its
 * upper end. Placed with the chart's own scales (like the USL curve), so it is right on a log x
 * axis too, where y = x is a curve. Achieved falling below it is the saturation point.
 */
export function OfferedLine({ points }: { points: ReadonlyArray<{ level: number; qps: number }> }) {
  const path = useScaledPath(points);
  if (!path) return null;
  const { d, pixels } = path;
  const end = pixels[pixels.length - 1];
  return (
    <ZIndexLayer zIndex={OFFERED_Z}>
      <g className="kb-offered" data-points={points.length} pointerEvents="none">
        <path className="kb-offered-line" d={d} fill="none" stroke={OFFERED_COLOUR} strokeWidth={1} strokeDasharray="2 3" data-first-x={pixels[0]?.x} data-last-x={end?.x} />
        {end?.x !== undefined && end.y !== undefined ? (
          <text className="kb-offered-label" x={end.x - 4} y={end.y + 12} textAnchor="end" fontSize={11} fill={OFFERED_COLOUR}>
            offered
          </text>
        ) : null}
      </g>
    </ZIndexLayer>
  );
}
