'use client';

import { Bar, BarChart, CartesianGrid, Cell, Tooltip, XAxis, YAxis } from 'recharts';
import type { SplitData } from '../../lib/curve-series.ts';
import { formatCompact, formatLevel } from '../../lib/format.ts';
import { SPLIT_SERIES } from '../../lib/series.ts';
import { AXIS_LABEL_STYLE, AXIS_LINE, AXIS_TICK, CHART_HEIGHT, CHART_MARGIN, GRID_STROKE, Y_AXIS_WIDTH } from './chart-style.ts';
import { CurveTooltip } from './CurveTooltip.tsx';

/** Where the median request's time goes at each level: compute, queue and the rest, stacked. */
export function SplitChart({ data, parameter }: { data: SplitData; parameter: string }) {
  const { rows } = data;
  return (
    <BarChart responsive style={{ width: '100%', height: CHART_HEIGHT }} data={rows} margin={CHART_MARGIN} barCategoryGap="22%">
      <CartesianGrid stroke={GRID_STROKE} vertical={false} />
      <XAxis
        dataKey="level"
        type="category"
        tickFormatter={(v: number) => formatLevel(v)}
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
        label={{ value: 'p50 latency (ms)', angle: -90, position: 'insideLeft', offset: 4, style: { ...AXIS_LABEL_STYLE, textAnchor: 'middle' } }}
      />
      <Tooltip
        content={(p) => <CurveTooltip active={p.active} payload={p.payload} parameter={parameter} variant="split" />}
        cursor={{ fill: 'rgba(31, 78, 140, 0.06)' }}
        isAnimationActive={false}
      />
      {SPLIT_SERIES.map((s) => (
        <Bar key={s.key} dataKey={s.key} name={s.label} stackId="p50" fill={s.color} maxBarSize={56} isAnimationActive={false}>
          {rows.map((r) => (
            <Cell key={r.level} fillOpacity={r.inProgress ? 0.45 : 1} className="kb-bar" data-level={r.level} />
          ))}
        </Bar>
      ))}
    </BarChart>
  );
}
