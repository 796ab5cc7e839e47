'use client';

import { usePlotArea, useXAxisScale } from 'recharts';
import type { KneeMark } from '../../lib/compare-series.ts';
import { KNEE_MARK } from '../../lib/knee-margin.ts';

const { HALF, HEIGHT, GAP } = KNEE_MARK;

/**
 * Each run's knee as a small triangle in its colour, pointing down at the plot from the top margin
 * (never over a point). Knees at the same level stack upwards. The title names run and level.
 */
export function KneeMarks({ marks }: { marks: ReadonlyArray<KneeMark> }) {
  const x = useXAxisScale();
  const plot = usePlotArea();
  if (!x || !plot || marks.length === 0) return null;
  const seen = new Map<number, number>();
  return (
    <g className="kb-run-knees">
      {marks.map((m) => {
        const px = x(m.level);
        if (px === undefined || !Number.isFinite(px)) return null;
        const stack = seen.get(m.level) ?? 0;
        seen.set(m.level, stack + 1);
        const tip = plot.y - GAP - stack * (HEIGHT + GAP);
        return (
          <polygon
            key={m.key}
            className="kb-run-knee"
            data-series={m.key}
            data-level={m.level}
            points={`${px - HALF},${tip - HEIGHT} ${px + HALF},${tip - HEIGHT} ${px},${tip}`}
            fill={m.colour}
            stroke="#ffffff"
            strokeWidth={1}
          >
            <title>{m.title}</title>
          </polygon>
        );
      })}
    </g>
  );
}
