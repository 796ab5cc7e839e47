'use client';

import { useMemo } from 'react';
import { CartesianGrid, Line, LineChart, ReferenceArea, Tooltip, XAxis, YAxis } from 'recharts';
import { formatLevel, formatMs, formatQps } from '@kneeboard/contracts/figures';
import { fetchRunTimeline } from '../../lib/client-api.ts';
import { bandAt, formatElapsed, prepareRunTimeline, type RunTimelineBand, type RunTimelineData } from '../../lib/run-timeline.ts';
import { LATENCY_SERIES, QPS_SERIES } from '../../lib/series.ts';
import { ChartPanel } from './ChartPanel.tsx';
import { usePolledRead } from './usePolledRead.ts';
import './run-timeline.css';
import { AXIS_LABEL_STYLE, AXIS_LINE, AXIS_TICK, CHART_MARGIN, chartSize, GRID_STROKE, valueAxisProps } from './chart-style.ts';

const P50 = LATENCY_SERIES[0];
const P99 = LATENCY_SERIES[2];
const ERROR_COLOUR = '#c0392b';
const WARMUP_FILL = '#8c96a3';
const STEP_FILLS = ['#dbe6f3', '#f1f4f8'];
const HEIGHT = 220;
/** A running run's timeline is read again at most this often (each live snapshot asks). */
const LIVE_REFRESH_MS = 2000;

function timeAxis(domain: [number, number]) {
  return {
    dataKey: 't',
    type: 'number' as const,
    domain,
    allowDataOverflow: true,
    tickFormatter: formatElapsed,
    tick: AXIS_TICK,
    axisLine: AXIS_LINE,
    tickLine: AXIS_LINE,
    label: { value: 'time since the run started (m:ss)', position: 'bottom' as const, offset: 4, style: AXIS_LABEL_STYLE },
  };
}

/** Each step shaded (alternating), its warm-up darker, the level written at the top. */
function StepBands({ bands, labels }: { bands: RunTimelineBand[]; labels: boolean }) {
  return bands.flatMap((b, i) => [
    <ReferenceArea
      key={`step-${b.level}`}
      x1={b.measured}
      x2={Math.max(b.to, b.measured)}
      fill={STEP_FILLS[i % 2]}
      fillOpacity={0.7}
      stroke="none"
      ifOverflow="hidden"
      className="kb-step"
      label={labels ? { value: formatLevel(b.level), position: 'insideTop', fill: '#3d4754', fontSize: 11 } : undefined}
    />,
    b.measured > b.from ? (
      <ReferenceArea key={`warm-${b.level}`} x1={b.from} x2={b.measured} fill={WARMUP_FILL} fillOpacity={0.28} stroke="none" ifOverflow="hidden" className="kb-step-warmup" />
    ) : null,
  ]);
}

function useOpenOnClick(bands: RunTimelineBand[], onOpen: (level: number) => void) {
  return (state: { activeLabel?: unknown }) => {
    const t = Number(state?.activeLabel);
    if (!Number.isFinite(t)) return;
    const band = bandAt(bands, t);
    if (band) onOpen(band.level);
  };
}

function Charts({ data, parameter, onOpen }: { data: RunTimelineData; parameter: string; onOpen: (level: number) => void }) {
  const click = useOpenOnClick(data.bands, onOpen);
  // The tooltip names the step under the pointer, so a dip can be read as "during 32" at a glance.
  const label = (t: unknown) => {
    const band = bandAt(data.bands, Number(t));
    return `${formatElapsed(Number(t))}${data.bucket_s > 1 ? ` (${data.bucket_s} s)` : ''}${band ? ` · ${parameter} ${formatLevel(band.level)}${Number(t) < band.measured ? ', warm-up' : ''}` : ''}`;
  };
  return (
    <>
      <LineChart {...chartSize(undefined, HEIGHT)} data={data.rows} margin={CHART_MARGIN} onClick={click} className="kb-timeline-chart" data-testid="timeline-throughput">
        <CartesianGrid stroke={GRID_STROKE} />
        {StepBands({ bands: data.bands, labels: true })}
        <XAxis {...timeAxis(data.domain)} />
        <YAxis {...valueAxisProps({ label: 'requests/s', axis: null })} ticks={undefined} domain={[0, 'auto']} />
        <Tooltip isAnimationActive={false} labelFormatter={label} formatter={(v, name) => [`${formatQps(typeof v === 'number' ? v : null)}/s`, name]} />
        <Line dataKey="rps" name="requests" stroke={QPS_SERIES.color} strokeWidth={1.75} dot={false} isAnimationActive={false} className="kb-timeline-rps" />
        <Line dataKey="errors" name="errors" stroke={ERROR_COLOUR} strokeWidth={1.5} dot={false} isAnimationActive={false} className="kb-timeline-errors" />
      </LineChart>
      <LineChart {...chartSize(undefined, HEIGHT)} data={data.rows} margin={CHART_MARGIN} onClick={click} className="kb-timeline-chart" data-testid="timeline-latency">
        <CartesianGrid stroke={GRID_STROKE} />
        {StepBands({ bands: data.bands, labels: false })}
        <XAxis {...timeAxis(data.domain)} />
        <YAxis {...valueAxisProps({ label: 'latency (ms)', axis: null })} ticks={undefined} domain={[0, 'auto']} />
        <Tooltip isAnimationActive={false} labelFormatter={label} formatter={(v, name) => [`${formatMs(typeof v === 'number' ? v : null)} ms`, name]} />
        <Line dataKey="p50" name={P50.label} stroke={P50.color} strokeWidth={1.75} dot={false} isAnimationActive={false} connectNulls={false} className="kb-timeline-p50" />
        <Line dataKey="p99" name={P99.label} stroke={P99.color} strokeWidth={1.75} dot={false} isAnimationActive={false} connectNulls={false} className="kb-timeline-p99" />
      </LineChart>
    </>
  );
}

/**
 * The whole run against its clock: requests/s and errors/s, then p50/p99, with each step shaded
 * and labelled by its level and its warm-up darker — where a stall, a warm-up effect or a noisy
 * neighbour shows. A click on a step (or its button) opens that level. While the run runs it is
 * read again every two seconds.
 */
export function RunTimelinePanel({ runId, parameter, running, onOpenLevel }: { runId: string; parameter: string; running: boolean; onOpenLevel: (level: number) => void }) {
  const { value: body, error } = usePolledRead(runId, () => fetchRunTimeline(runId), running, LIVE_REFRESH_MS, 'The timeline could not be read');

  const data = useMemo(() => (body === null ? null : prepareRunTimeline(body)), [body]);
  const empty = error ?? (body === null ? 'Reading the timeline…' : data === null || data.rows.length === 0 ? 'No request has completed yet.' : null);

  return (
    <ChartPanel
      title="Timeline"
      subtitle={
        <>
          the whole run against its clock{data && data.bucket_s > 1 ? `, ${data.bucket_s} s per point` : ', per second'}; steps shaded by {parameter}, warm-up darker
        </>
      }
      legend={
        <>
          <span className="legend-item" style={{ color: QPS_SERIES.color }}>
            <span className="swatch" style={{ background: QPS_SERIES.color }} />
            <span className="legend-text">requests/s</span>
          </span>
          <span className="legend-item" style={{ color: ERROR_COLOUR }}>
            <span className="swatch" style={{ background: ERROR_COLOUR }} />
            <span className="legend-text">errors/s</span>
          </span>
          <span className="legend-item" style={{ color: P50.color }}>
            <span className="swatch" style={{ background: P50.color }} />
            <span className="legend-text">{P50.label}</span>
          </span>
          <span className="legend-item" style={{ color: P99.color }}>
            <span className="swatch" style={{ background: P99.color }} />
            <span className="legend-text">{P99.label}</span>
          </span>
          <span className="legend-item muted">
            <span className="swatch" style={{ background: WARMUP_FILL, opacity: 0.5 }} />
            <span className="legend-text">warm-up</span>
          </span>
        </>
      }
      footnote={
        data && data.bands.length > 0 ? (
          <span className="timeline-steps">
            <span>Open a step:</span>
            {data.bands.map((b) => (
              <button key={b.level} type="button" className="level-link" onClick={() => onOpenLevel(b.level)} data-testid="timeline-step" data-level={b.level}>
                {formatLevel(b.level)}
              </button>
            ))}
          </span>
        ) : undefined
      }
      empty={empty}
      testId="run-timeline"
    >
      {data ? <Charts data={data} parameter={parameter} onOpen={onOpenLevel} /> : null}
    </ChartPanel>
  );
}
