'use client';

import { Line, type DotItemDotProps } from 'recharts';
import type { FitLine, KneeMark, OverlayData, OverlayPoint } from '../../lib/compare-series.ts';
import type { ScaleKind } from '@kneeboard/chart-prep';
import { BASE_DASH } from '../../lib/series.ts';
import { CHART_HEIGHT } from '../run/chart-style.ts';
import { CurveChartFrame } from '../run/CurveChartFrame.tsx';
import { UslCurve } from '../run/UslCurve.tsx';
import { kneeMarginTop } from '../../lib/knee-margin.ts';
import { KneeMarks } from './KneeMarks.tsx';
import { OverlayTooltip } from './OverlayTooltip.tsx';

/** Fitted curves are dotted: on a comparison a dashed line is the base run. */
export const FIT_DASH = '1 4';

export interface OverlayAxes {
  parameter: string;
  xScale: ScaleKind;
  xDomain: [number, number];
  xTicks: number[];
  yScale: ScaleKind;
  yLabel: string;
  /** Tooltip values: `120,797 req/s`, `1.10 ms`. */
  format: (v: number) => string;
}

function renderDot(props: DotItemDotProps, colour: string, series: string) {
  const p = props.payload as OverlayPoint | undefined;
  const { cx, cy, index } = props;
  if (p === undefined || p.value === null || cx == null || cy == null || !Number.isFinite(cx) || !Number.isFinite(cy)) return <g key={`gap-${series}-${index}`} />;
  return (
    <circle
      key={`dot-${series}-${p.level}`}
      className="kb-dot"
      data-series={series}
      data-level={p.level}
      cx={cx}
      cy={cy}
      r={p.inProgress ? 4 : 3}
      fill={p.inProgress ? '#ffffff' : colour}
      stroke={colour}
      strokeWidth={1.5}
    />
  );
}

/**
 * One metric of every compared run on shared axes: a line per run through its own levels (base
 * dashed), fitted USL lines when asked for, and each run's knee as a mark above the plot. `width`
 * fixes the size (the printed review); without it the chart fills its panel.
 */
export function OverlayChart({ data, axes, fits = [], knees = [], width, height = CHART_HEIGHT }: { data: OverlayData; axes: OverlayAxes; fits?: FitLine[]; knees?: KneeMark[]; width?: number; height?: number }) {
  return (
    <CurveChartFrame
      rows={data.rows}
      x={{ parameter: axes.parameter, scale: axes.xScale, domain: axes.xDomain, ticks: axes.xTicks }}
      y={{ label: axes.yLabel, axis: data.yAxis, scale: axes.yScale }}
      tooltip={width === undefined ? (p) => <OverlayTooltip active={p.active} label={p.label} data={data} parameter={axes.parameter} format={axes.format} /> : undefined}
      width={width}
      height={height}
      marginTop={kneeMarginTop(knees)}
      className="kb-overlay"
      data-metric={data.metric}
    >
      {fits.map((f) => (
        <UslCurve key={`fit-${f.key}`} points={f.points} colour={f.colour} series={f.key} strokeWidth={1.75} dash={FIT_DASH} opacity={0.75} trusted={f.trusted} />
      ))}
      {data.lines.map((l) => (
        <Line
          key={l.key}
          data={l.points}
          type="linear"
          dataKey="value"
          name={l.label}
          stroke={l.colour}
          strokeWidth={l.dashed ? 2.25 : 2}
          strokeDasharray={l.dashed ? BASE_DASH : undefined}
          connectNulls={false}
          dot={(p) => renderDot(p, l.colour, l.key)}
          activeDot={false}
          isAnimationActive={false}
          className={`kb-run-line kb-${l.role}`}
        />
      ))}
      <KneeMarks marks={knees} />
    </CurveChartFrame>
  );
}
