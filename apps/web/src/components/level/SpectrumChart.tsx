'use client';

import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatMs } from '@kneeboard/contracts/figures';
import { formatPercentile } from '@kneeboard/contracts/figures';
import { NINES_DOMAIN, NINES_TICKS, type SpectrumRow } from '../../lib/level-detail.ts';
import { LATENCY_SERIES } from '../../lib/series.ts';
import { AXIS_LABEL_STYLE, AXIS_LINE, AXIS_TICK, CHART_MARGIN, chartSize, GRID_STROKE, valueAxisProps } from '../run/chart-style.ts';

const COLOUR = LATENCY_SERIES[2].color;
const TICK_LABELS = new Map(NINES_TICKS.map((t) => [t.x, t.label]));

/** One series of a spectrum: the run's colour and name (several on the compare page). */
export interface SpectrumSeries {
  key: string;
  label: string;
  colour: string;
  dashed?: boolean;
  rows: SpectrumRow[];
}

/**
 * Latency by percentile, HDR-histogram style: x is the number of nines (p90, p99, p99.9, p99.99
 * equally spaced), so the tail gets as much room as the body. Missing percentiles are gaps.
 */
export function SpectrumChart({ series }: { series: SpectrumSeries[] }) {
  const xs = [...new Set(series.flatMap((s) => s.rows.map((r) => r.x)))].sort((a, b) => a - b);
  // One row per percentile with a column per series, so the tooltip lists every run at that percentile.
  const data = xs.map((x) => {
    const row: Record<string, number | null> = { x, p: series[0]?.rows.find((r) => r.x === x)?.p ?? null };
    for (const s of series) row[s.key] = s.rows.find((r) => r.x === x)?.ms ?? null;
    return row;
  });
  return (
    <LineChart {...chartSize(undefined)} data={data} margin={CHART_MARGIN}>
      <CartesianGrid stroke={GRID_STROKE} />
      <XAxis
        dataKey="x"
        type="number"
        domain={NINES_DOMAIN}
        ticks={NINES_TICKS.map((t) => t.x)}
        tickFormatter={(x: number) => TICK_LABELS.get(x) ?? ''}
        tick={AXIS_TICK}
        axisLine={AXIS_LINE}
        tickLine={AXIS_LINE}
        allowDataOverflow
        label={{ value: 'percentile (nines: p90, p99, p99.9 … equally spaced)', position: 'bottom', offset: 4, style: AXIS_LABEL_STYLE }}
      />
      <YAxis {...valueAxisProps({ label: 'latency (ms)', axis: null })} domain={[0, 'auto']} ticks={undefined} />
      <Tooltip
        isAnimationActive={false}
        labelFormatter={(_, payload) => {
          const p = payload?.[0]?.payload as { p?: number } | undefined;
          return p?.p === undefined ? '' : `p${formatPercentile(p.p)}`;
        }}
        formatter={(v) => `${formatMs(typeof v === 'number' ? v : null)} ms`}
      />
      {series.map((s) => (
        <Line
          key={s.key}
          dataKey={s.key}
          name={s.label}
          stroke={series.length === 1 ? COLOUR : s.colour}
          strokeDasharray={s.dashed ? '7 4' : undefined}
          strokeWidth={2}
          dot={{ r: 3, className: 'kb-spectrum-dot' }}
          isAnimationActive={false}
          connectNulls={false}
        />
      ))}
    </LineChart>
  );
}
