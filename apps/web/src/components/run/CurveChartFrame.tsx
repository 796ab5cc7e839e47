'use client';

import { useState, type ComponentProps, type ReactNode } from 'react';
import { CartesianGrid, LineChart, ReferenceArea, Tooltip, XAxis, YAxis } from 'recharts';
import { useLevelZoom } from '../zoom/LevelZoom.tsx';
import { CHART_HEIGHT, CHART_MARGIN, chartSize, GRID_STROKE, numericLevelAxisProps, valueAxisProps, type LevelAxisSpec, type ValueAxisSpec } from './chart-style.ts';

/**
 * What every curve chart (the run page's throughput and latency, each overlay on a comparison)
 * draws around its lines: the grid, the numeric level axis, the value axis and the hover tooltip.
 * `children` are the lines and overlays (knee, fitted curves), in drawing order. `width` fixes the
 * size (the printed review); without it the chart fills its panel.
 *
 * Inside a LevelZoomContext, dragging across the plot shades the levels between the two ends and,
 * on release, zooms the view to them (the view writes `levels=` to its URL). The ends snap to
 * measured levels: Recharts reports the row nearest the pointer.
 */
export function CurveChartFrame({
  rows,
  x,
  y,
  tooltip,
  width,
  height = CHART_HEIGHT,
  marginTop,
  children,
  ...attributes
}: {
  rows: ComponentProps<typeof LineChart>['data'];
  x: LevelAxisSpec;
  y: ValueAxisSpec;
  /** The tooltip's content; none, no tooltip (print). */
  tooltip?: ComponentProps<typeof Tooltip>['content'];
  width?: number;
  height?: number;
  /** A taller top margin than CHART_MARGIN's, for marks stacked above the plot (a comparison's knees). */
  marginTop?: number;
  children: ReactNode;
  className?: string;
  'data-metric'?: string;
}) {
  const zoom = useLevelZoom();
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const levelAt = (state: { activeLabel?: unknown }): number | null => {
    const v = Number(state.activeLabel);
    return state.activeLabel === undefined || !Number.isFinite(v) ? null : v;
  };
  const zoomHandlers =
    zoom !== null && width === undefined
      ? {
          onMouseDown: (state: { activeLabel?: unknown }, event: { preventDefault(): void }) => {
            // No focus on press: a focused chart is Recharts' keyboard mode, which pins the tooltip
            // to the first level (and the focus ring would frame the plot after every drag).
            event.preventDefault();
            const l = levelAt(state);
            setDrag(l === null ? null : { from: l, to: l });
          },
          onMouseMove: (state: { activeLabel?: unknown }) => {
            const l = levelAt(state);
            if (drag !== null && l !== null && l !== drag.to) setDrag({ ...drag, to: l });
          },
          onMouseUp: () => {
            if (drag !== null && drag.from !== drag.to) zoom(Math.min(drag.from, drag.to), Math.max(drag.from, drag.to));
            setDrag(null);
          },
          onMouseLeave: () => setDrag(null),
        }
      : {};
  return (
    <LineChart {...chartSize(width, height)} data={rows} margin={marginTop === undefined ? CHART_MARGIN : { ...CHART_MARGIN, top: marginTop }} {...zoomHandlers} {...attributes} className={[attributes.className, zoomHandlers.onMouseDown ? 'kb-zoomable' : ''].filter(Boolean).join(' ')}>
      <CartesianGrid stroke={GRID_STROKE} />
      <XAxis {...numericLevelAxisProps(x)} />
      <YAxis {...valueAxisProps(y)} />
      {tooltip === undefined ? null : <Tooltip content={tooltip} isAnimationActive={false} />}
      {children}
      {drag !== null && drag.from !== drag.to ? <ReferenceArea x1={drag.from} x2={drag.to} fill="#2563eb" fillOpacity={0.12} stroke="#2563eb" strokeOpacity={0.4} className="kb-zoom-area" /> : null}
    </LineChart>
  );
}
