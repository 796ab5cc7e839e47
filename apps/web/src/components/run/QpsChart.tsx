'use client';

import type { ReactNode } from 'react';
import { Line } from 'recharts';
import type { QpsData } from '../../lib/curve-series.ts';
import type { ScaleKind } from '@kneeboard/chart-prep';
import { QPS_SERIES } from '../../lib/series.ts';
import { runLevelAxis } from './chart-style.ts';
import { CurveChartFrame } from './CurveChartFrame.tsx';
import { CurveTooltip } from './CurveTooltip.tsx';
import { levelLineProps } from './LevelDot.tsx';

/** Throughput against load level. `children` is the overlay slot: the knee marker and the USL fit. */
export function QpsChart({
  data,
  parameter,
  xScale,
  showFit = false,
  xLabel,
  children,
}: {
  data: QpsData;
  parameter: string;
  xScale: ScaleKind;
  showFit?: boolean;
  /** The level axis' label when it is not the parameter (an open loop's `offered rate (req/s)`). */
  xLabel?: string;
  children?: ReactNode;
}) {
  return (
    <CurveChartFrame
      rows={data.rows}
      x={runLevelAxis(xLabel ?? parameter, data.rows, xScale)}
      y={{ label: 'throughput (req/s)', axis: data.yAxis }}
      tooltip={(p) => <CurveTooltip active={p.active} payload={p.payload} parameter={parameter} variant="qps" showFit={showFit} />}
    >
      <Line {...levelLineProps('qps', QPS_SERIES.color, QPS_SERIES.label)} />
      {children}
    </CurveChartFrame>
  );
}
