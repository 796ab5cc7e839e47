'use client';

import { Bar, BarChart, CartesianGrid, Cell, Tooltip, XAxis, YAxis } from 'recharts';
import type { SplitData } from '../../lib/curve-series.ts';
import { SPLIT_SERIES } from '../../lib/series.ts';
import { CHART_MARGIN, chartSize, GRID_STROKE, levelAxisProps, valueAxisProps } from './chart-style.ts';
import { CurveTooltip } from './CurveTooltip.tsx';

/** Where the median request's time goes at each level: compute, queue and the rest, stacked. */
export function SplitChart({ data, parameter }: { data: SplitData; parameter: string }) {
  const { rows } = data;
  return (
    <BarChart {...chartSize(undefined)} data={rows} margin={CHART_MARGIN} barCategoryGap="22%">
      <CartesianGrid stroke={GRID_STROKE} vertical={false} />
      <XAxis {...levelAxisProps(parameter)} type="category" />
      <YAxis {...valueAxisProps({ label: 'p50 latency (ms)', axis: data.yAxis })} />
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
