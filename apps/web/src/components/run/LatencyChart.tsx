'use client';

import type { ReactNode } from 'react';
import { Line } from 'recharts';
import type { LatencyData } from '../../lib/curve-series.ts';
import type { ScaleKind } from '@kneeboard/chart-prep';
import { LATENCY_SERIES, type LatencyKey } from '../../lib/series.ts';
import { runLevelAxis } from './chart-style.ts';
import { CurveChartFrame } from './CurveChartFrame.tsx';
import { CurveTooltip } from './CurveTooltip.tsx';
import { levelLineProps } from './LevelDot.tsx';

/**
 * Latency percentiles against load level. Missing percentiles are gaps (connectNulls is off);
 * on a log y axis the domain and ticks come from the prepared data, which holds no zeros.
 */
export function LatencyChart({
  data,
  visible,
  parameter,
  xLabel,
  xScale,
  yScale,
  children,
}: {
  data: LatencyData;
  visible: ReadonlyArray<LatencyKey>;
  parameter: string;
  xLabel?: string;
  xScale: ScaleKind;
  yScale: ScaleKind;
  children?: ReactNode;
}) {
  return (
    <CurveChartFrame
      rows={data.rows}
      x={runLevelAxis(xLabel ?? parameter, data.rows, xScale)}
      y={{ label: 'latency (ms)', axis: data.yAxis, scale: yScale }}
      tooltip={(p) => <CurveTooltip active={p.active} payload={p.payload} parameter={parameter} variant="latency" visible={visible} />}
    >
      {LATENCY_SERIES.filter((s) => visible.includes(s.key)).map((s) => (
        <Line key={s.key} {...levelLineProps(s.key, s.color, s.label)} />
      ))}
      {children}
    </CurveChartFrame>
  );
}
