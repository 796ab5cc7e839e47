'use client';

import { ReferenceLine, usePlotArea } from 'recharts';
import { kneeTagBox, type KneeMarkerSpec } from '../../lib/knee.ts';
import { KNEE_STYLE } from '../../lib/series.ts';

/** Below the measured lines (400), above the grid: the data stays on top of the annotation. */
const KNEE_Z = 350;

interface ShapeProps {
  x1?: number;
  y1?: number;
  x2?: number;
  y2?: number;
}

/**
 * The knee as a vertical line at its level with a small `knee · 8` tag just above the plot.
 * Hovering the line or the tag shows the knee's reason (SVG title). `kb-knee` and `data-level` let
 * tests find it and compare its x with the point drawn at that level.
 */
export function KneeMarker({ marker }: { marker: KneeMarkerSpec | null }) {
  if (marker === null) return null;
  return <ReferenceLine x={marker.level} ifOverflow="discard" zIndex={KNEE_Z} shape={(p: ShapeProps) => <KneeShape {...p} marker={marker} />} />;
}

function KneeShape({ x1, y1, x2, y2, marker }: ShapeProps & { marker: KneeMarkerSpec }) {
  const plot = usePlotArea();
  if (x1 == null || y1 == null || x2 == null || y2 == null || !Number.isFinite(x1)) return <g />;
  const top = Math.min(y1, y2);
  const bottom = Math.max(y1, y2);
  const tag = kneeTagBox(x1, marker.label, plot ?? { x: x1 - 40, y: top, width: 80 });
  return (
    <g className="kb-knee" data-level={marker.level} data-method={marker.method}>
      <title>{marker.title}</title>
      <line className="kb-knee-line" x1={x1} y1={top} x2={x2} y2={bottom} stroke={KNEE_STYLE.color} strokeOpacity={0.6} strokeWidth={1.5} strokeDasharray="2 3" />
      {/* A wider invisible stroke, so the reason is reachable by hovering near the thin line. */}
      <line x1={x1} y1={top} x2={x2} y2={bottom} stroke="transparent" strokeWidth={10} />
      <line x1={x1} y1={tag.y + tag.height} x2={x1} y2={top} stroke={KNEE_STYLE.color} strokeOpacity={0.6} strokeWidth={1.5} />
      <g className="kb-knee-tag" transform={`translate(${tag.x}, ${tag.y})`}>
        <rect width={tag.width} height={tag.height} rx={tag.height / 2} fill="#ffffff" stroke={KNEE_STYLE.color} strokeOpacity={0.5} />
        <text x={tag.width / 2} y={12} textAnchor="middle" fontSize={11} fontWeight={600} fill={KNEE_STYLE.color}>
          {marker.label}
        </text>
      </g>
    </g>
  );
}
