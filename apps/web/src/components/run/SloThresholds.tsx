'use client';

import { ReferenceLine } from 'recharts';
import type { SloThreshold } from '../../lib/capacity-view.ts';

/** Above the grid, under the measured lines (400), like the knee. */
const THRESHOLD_Z = 340;

interface ShapeProps {
  x1?: number;
  y1?: number;
  x2?: number;
  y2?: number;
}

/**
 * Each latency SLO as a horizontal dashed line at its threshold, in its percentile's colour,
 * labelled `p99 ≤ 50 ms` at the right end. `kb-slo-threshold` and `data-slo` let tests find it.
 */
export function SloThresholds({ thresholds }: { thresholds: readonly SloThreshold[] }) {
  return (
    <>
      {thresholds.map((t) => (
        <ReferenceLine key={t.slo} y={t.ms} ifOverflow="discard" zIndex={THRESHOLD_Z} shape={(p: ShapeProps) => <ThresholdShape {...p} threshold={t} />} />
      ))}
    </>
  );
}

function ThresholdShape({ x1, y1, x2, y2, threshold }: ShapeProps & { threshold: SloThreshold }) {
  if (x1 == null || y1 == null || x2 == null || y2 == null || !Number.isFinite(y1)) return <g />;
  const right = Math.max(x1, x2);
  return (
    <g className="kb-slo-threshold" data-slo={threshold.slo} data-ms={threshold.ms}>
      <title>{`SLO: ${threshold.label}`}</title>
      <line x1={x1} y1={y1} x2={x2} y2={y2} stroke={threshold.colour} strokeWidth={1.5} strokeDasharray="8 4" strokeOpacity={0.85} />
      <text x={right - 4} y={y1 - 5} textAnchor="end" fontSize={11} fontWeight={600} fill={threshold.colour} stroke="#ffffff" strokeWidth={3} paintOrder="stroke">
        {`SLO ${threshold.label}`}
      </text>
    </g>
  );
}
