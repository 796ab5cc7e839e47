'use client';

import { CartesianGrid, Line, LineChart, ReferenceArea, Tooltip, XAxis, YAxis } from 'recharts';
import { formatElapsedSeconds, formatMs, formatQps } from '@kneeboard/contracts/figures';
import type { TimelineData } from '../../lib/level-detail.ts';
import { LATENCY_SERIES, QPS_SERIES } from '../../lib/series.ts';
import { AXIS_LABEL_STYLE, AXIS_LINE, AXIS_TICK, CHART_MARGIN, chartSize, GRID_STROKE, valueAxisProps } from '../run/chart-style.ts';

const WARMUP_FILL = '#8c96a3';
const P50 = LATENCY_SERIES[0];
const P99 = LATENCY_SERIES[2];

function timeAxis(domain: [number, number]) {
  return {
    dataKey: 't',
    type: 'number' as const,
    domain,
    allowDataOverflow: true,
    tickFormatter: (t: number) => formatElapsedSeconds(t, 1),
    tick: AXIS_TICK,
    axisLine: AXIS_LINE,
    tickLine: AXIS_LINE,
    label: { value: 'seconds since the step started', position: 'bottom' as const, offset: 4, style: AXIS_LABEL_STYLE },
  };
}

/** The warm-up, shaded and labelled: it is drawn, but the curve does not count it. */
function Warmup({ range }: { range: [number, number] | null }) {
  if (range === null) return null;
  return (
    <ReferenceArea
      x1={range[0]}
      x2={range[1]}
      fill={WARMUP_FILL}
      fillOpacity={0.16}
      stroke="none"
      ifOverflow="hidden"
      className="kb-warmup"
      label={{ value: 'warm-up', position: 'insideTopLeft', fill: '#3d4754', fontSize: 11 }}
    />
  );
}

/** Successful requests per second through the step, warm-up included: stalls show as dips to 0. */
export function ThroughputOverTime({ data }: { data: TimelineData }) {
  return (
    <LineChart {...chartSize(undefined)} data={data.rows} margin={CHART_MARGIN}>
      <CartesianGrid stroke={GRID_STROKE} />
      <Warmup range={data.warmup} />
      <XAxis {...timeAxis(data.domain)} />
      <YAxis {...valueAxisProps({ label: 'throughput (req/s)', axis: null })} ticks={undefined} domain={[0, 'auto']} />
      <Tooltip isAnimationActive={false} labelFormatter={(t) => `${formatElapsedSeconds(Number(t))} s`} formatter={(v) => [`${formatQps(typeof v === 'number' ? v : null)} req/s`, 'throughput']} />
      <Line dataKey="qps" name="throughput" stroke={QPS_SERIES.color} strokeWidth={2} dot={false} isAnimationActive={false} className="kb-timeline-qps" />
    </LineChart>
  );
}

/** p50 and p99 per slice; a slice with no successful request is a gap. */
export function LatencyOverTime({ data }: { data: TimelineData }) {
  return (
    <LineChart {...chartSize(undefined)} data={data.rows} margin={CHART_MARGIN}>
      <CartesianGrid stroke={GRID_STROKE} />
      <Warmup range={data.warmup} />
      <XAxis {...timeAxis(data.domain)} />
      <YAxis {...valueAxisProps({ label: 'latency (ms)', axis: null })} ticks={undefined} domain={[0, 'auto']} />
      <Tooltip isAnimationActive={false} labelFormatter={(t) => `${formatElapsedSeconds(Number(t))} s`} formatter={(v, name) => [`${formatMs(typeof v === 'number' ? v : null)} ms`, name]} />
      <Line dataKey="p50" name={P50.label} stroke={P50.color} strokeWidth={2} dot={false} isAnimationActive={false} connectNulls={false} />
      <Line dataKey="p99" name={P99.label} stroke={P99.color} strokeWidth={2} dot={false} isAnimationActive={false} connectNulls={false} />
    </LineChart>
  );
}
