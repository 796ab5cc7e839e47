'use client';

import type { ReactNode } from 'react';
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { LatencyData } from '../../lib/curve-series.ts';
import { formatCompact, formatLevel } from '../../lib/format.ts';
import { levelDomain, levelTicks, type ScaleKind } from '../../lib/scales.ts';
import { LATENCY_SERIES, type LatencyKey } from '../../lib/series.ts';
import { AXIS_LABEL_STYLE, AXIS_LINE, AXIS_TICK, CHART_HEIGHT, CHART_MARGIN, GRID_STROKE, Y_AXIS_WIDTH } from './chart-style.ts';
import { CurveTooltip } from './CurveTooltip.tsx';
import { renderLevelDot } from './LevelDot.tsx';

/**
 * Latency percentiles against load level. Missing percentiles are gaps (connectNulls is off);
 * on a log y axis the domain and ticks come from the prepared data, which holds no zeros.
 */
export function LatencyChart({
  data,
  visible,
  parameter,
  xScale,
  yScale,
  children,
}: {
  data: LatencyData;
  visible: ReadonlyArray<LatencyKey>;
  parameter: string;
  xScale: ScaleKind;
  yScale: ScaleKind;
  children?: ReactNode;
}) {
  const levels = data.rows.map((r) => r.level);
  const yAxis = data.yAxis ?? { domain: [0, 1] as [number, number], ticks: [] };
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
        scale={yScale}
        domain={yAxis.domain}
        ticks={yAxis.ticks}
        allowDataOverflow
        tickFormatter={formatCompact}
        width={Y_AXIS_WIDTH}
        tick={AXIS_TICK}
        axisLine={AXIS_LINE}
        tickLine={AXIS_LINE}
        label={{ value: 'latency (ms)', angle: -90, position: 'insideLeft', offset: 4, style: { ...AXIS_LABEL_STYLE, textAnchor: 'middle' } }}
      />
      <Tooltip
        content={(p) => <CurveTooltip active={p.active} payload={p.payload} parameter={parameter} variant="latency" visible={visible} />}
        isAnimationActive={false}
      />
      {LATENCY_SERIES.filter((s) => visible.includes(s.key)).map((s) => (
        <Line
          key={s.key}
          type="linear"
          dataKey={s.key}
          name={s.label}
          stroke={s.color}
          strokeWidth={2}
          connectNulls={false}
          dot={(p) => renderLevelDot(p, s.color, s.key)}
          activeDot={{ r: 5 }}
          isAnimationActive={false}
        />
      ))}
      {children}
    </LineChart>
  );
}
