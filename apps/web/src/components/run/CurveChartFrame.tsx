'use client';

import type { ComponentProps, ReactNode } from 'react';
import { CartesianGrid, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { CHART_HEIGHT, CHART_MARGIN, chartSize, GRID_STROKE, numericLevelAxisProps, valueAxisProps, type LevelAxisSpec, type ValueAxisSpec } from './chart-style.ts';

/**
 * What every curve chart (the run page's throughput and latency, each overlay on a comparison)
 * draws around its lines: the grid, the numeric level axis, the value axis and the hover tooltip.
 * `children` are the lines and overlays (knee, fitted curves), in drawing order. `width` fixes the
 * size (the printed review); without it the chart fills its panel.
 */
export function CurveChartFrame({
  rows,
  x,
  y,
  tooltip,
  width,
  height = CHART_HEIGHT,
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
  children: ReactNode;
  className?: string;
  'data-metric'?: string;
}) {
  return (
    <LineChart {...chartSize(width, height)} data={rows} margin={CHART_MARGIN} {...attributes}>
      <CartesianGrid stroke={GRID_STROKE} />
      <XAxis {...numericLevelAxisProps(x)} />
      <YAxis {...valueAxisProps(y)} />
      {tooltip === undefined ? null : <Tooltip content={tooltip} isAnimationActive={false} />}
      {children}
    </LineChart>
  );
}
