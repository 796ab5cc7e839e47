'use client';

import { ReferenceArea, ReferenceLine, usePlotArea } from 'recharts';
import type { CapacityMarkerSpec } from '../../lib/capacity-view.ts';

export const CAPACITY_COLOUR = '#1b7a3e';
const CAPACITY_Z = 345;

interface ShapeProps {
  x1?: number;
  y1?: number;
  x2?: number;
  y2?: number;
}

/**
 * The capacity under the SLOs on the throughput chart: a solid vertical line at the highest level
 * that holds, labelled with its QPS inside the plot's foot (the knee's tag is above the plot), and
 * the bracket up to the first level that breaks shaded. `kb-capacity` and `data-level` for tests.
 */
export function CapacityMarker({ marker }: { marker: CapacityMarkerSpec | null }) {
  if (marker === null) return null;
  return (
    <>
      {marker.bracket ? (
        <ReferenceArea x1={marker.bracket.from} x2={marker.bracket.to} ifOverflow="discard" fill={CAPACITY_COLOUR} fillOpacity={0.08} className="kb-capacity-bracket" />
      ) : null}
      <ReferenceLine x={marker.level} ifOverflow="discard" zIndex={CAPACITY_Z} shape={(p: ShapeProps) => <CapacityShape {...p} marker={marker} />} />
    </>
  );
}

/** An average glyph width at 11 px semibold, to keep the label inside the plot. */
const CHAR_WIDTH = 6.2;

function CapacityShape({ x1, y1, x2, y2, marker }: ShapeProps & { marker: CapacityMarkerSpec }) {
  const plot = usePlotArea();
  if (x1 == null || y1 == null || x2 == null || y2 == null || !Number.isFinite(x1)) return <g />;
  const top = Math.min(y1, y2);
  const bottom = Math.max(y1, y2);
  // The label reads from the line into the bracket (over the shaded part), or leftwards where the plot ends.
  const flip = plot != null && x1 + 5 + marker.label.length * CHAR_WIDTH > plot.x + plot.width;
  return (
    <g className="kb-capacity" data-level={marker.level} data-qps={marker.qps}>
      <title>{marker.title}</title>
      <line x1={x1} y1={top} x2={x2} y2={bottom} stroke={CAPACITY_COLOUR} strokeWidth={2} />
      <line x1={x1} y1={top} x2={x2} y2={bottom} stroke="transparent" strokeWidth={10} />
      <text x={flip ? x1 - 5 : x1 + 5} y={bottom - 8} textAnchor={flip ? 'end' : 'start'} fontSize={11} fontWeight={600} fill={CAPACITY_COLOUR} stroke="#ffffff" strokeWidth={3} paintOrder="stroke">
        {marker.label}
      </text>
    </g>
  );
}
