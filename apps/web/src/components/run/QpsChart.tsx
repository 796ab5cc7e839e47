'use client';

import type { ReactNode } from 'react';
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { QpsData } from '../../lib/curve-series.ts';
import { formatCompact, formatLevel } from '../../lib/format.ts';
import { levelDomain, levelTicks, type ScaleKind } from '../../lib/scales.ts';
import { QPS_SERIES } from '../../lib/series.ts';
import { AXIS_LABEL_STYLE, AXIS_LINE, AXIS_TICK, CHART_HEIGHT, CHART_MARGIN, GRID_STROKE, Y_AXIS_WIDTH } from './chart-style.ts';
import { CurveTooltip } from './CurveTooltip.tsx';
import { renderLevelDot } from './LevelDot.tsx';

/** Throughput against load level. `children` is the overlay slot: the knee marker and the USL fit. */
export function QpsChart({
  data,
  parameter,
  xScale,
  showFit = false,
  children,
}: {
  data: QpsData;
  parameter: string;
  xScale: ScaleKind;
  showFit?: boolean;
  children?: ReactNode;
}) {
  const levels = data.rows.map((r) => r.level);
  return (
    <LineChart responsive style={{ width: '100%', height: CHART_HEIGHT }} data={data.rows} margin={CHART_MARGIN}>
      <CartesianGrid stroke={GRID_STROKE} />
      <XAxis
        dataKey="level"
        type="number"
        scale={xScale}
        domain={levelDomain(levels, xScale)}
        ticks={levelTicks(levels)}
        tickFormatter={formatLevel}
        allowDataOverflow
        tick={AXIS_TICK}
        axisLine={AXIS_LINE}
        tickLine={AXIS_LINE}
        label={{ value: parameter, position: 'bottom', offset: 4, style: AXIS_LABEL_STYLE }}
      />
      <YAxis
        type="number"
        domain={data.yAxis.domain}
        ticks={data.yAxis.ticks}
        tickFormatter={formatCompact}
        width={Y_AXIS_WIDTH}
        tick={AXIS_TICK}
        axisLine={AXIS_LINE}
        tickLine={AXIS_LINE}
        label={{ value: 'throughput (req/s)', angle: -90, position: 'insideLeft', offset: 4, style: { ...AXIS_LABEL_STYLE, textAnchor: 'middle' } }}
      />
      <Tooltip content={(p) => <CurveTooltip active={p.active} payload={p.payload} parameter={parameter} variant="qps" showFit={showFit} />} isAnimationActive={false} />
      <Line
        type="linear"
        dataKey="qps"
        name={QPS_SERIES.label}
        stroke={QPS_SERIES.color}
        strokeWidth={2}
        dot={(p) => renderLevelDot(p, QPS_SERIES.color, 'qps')}
        activeDot={{ r: 5 }}
        isAnimationActive={false}
      />
      {children}
    </LineChart>
  );
}
