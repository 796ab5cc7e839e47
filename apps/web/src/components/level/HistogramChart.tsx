'use client';

import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { formatCount } from '../../lib/format.ts';
import type { HistogramRow } from '../../lib/level-detail.ts';
import { QPS_SERIES } from '../../lib/series.ts';
import { AXIS_LABEL_STYLE, AXIS_LINE, AXIS_TICK, CHART_MARGIN, chartSize, GRID_STROKE, valueAxisProps } from '../run/chart-style.ts';

/**
 * How many successful requests took how long: log-spaced buckets, drawn as equal-width bars, so the
 * x axis reads logarithmically. Each tick is the bucket's lower edge.
 */
export function HistogramChart({ rows }: { rows: HistogramRow[] }) {
  const ticks = rows.filter((_, i) => i % 8 === 0).map((r) => r.label);
  return (
    <BarChart {...chartSize(undefined)} data={rows} margin={CHART_MARGIN} barCategoryGap={1}>
      <CartesianGrid stroke={GRID_STROKE} vertical={false} />
      <XAxis
        dataKey="label"
        type="category"
        ticks={ticks}
        tickFormatter={(label: string) => label.split('–')[0] ?? label}
        tick={AXIS_TICK}
        axisLine={AXIS_LINE}
        tickLine={AXIS_LINE}
        label={{ value: 'latency (ms, log buckets)', position: 'bottom', offset: 4, style: AXIS_LABEL_STYLE }}
      />
      <YAxis {...valueAxisProps({ label: 'requests', axis: null })} ticks={undefined} domain={[0, 'auto']} allowDecimals={false} />
      <Tooltip isAnimationActive={false} labelFormatter={(label) => `${String(label)} ms`} formatter={(v) => [formatCount(typeof v === 'number' ? v : null), 'requests']} cursor={{ fill: 'rgba(31, 78, 140, 0.06)' }} />
      <Bar dataKey="count" fill={QPS_SERIES.color} isAnimationActive={false} className="kb-hist-bar" />
    </BarChart>
  );
}
