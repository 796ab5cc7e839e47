'use client';

import { formatLevel, formatR2 } from '@kneeboard/contracts/figures';
import type { ReactNode } from 'react';
import { runChartExport, type RunViewModel } from '../../lib/run-view.ts';
import { QPS_SERIES, USL_SERIES } from '../../lib/series.ts';
import { ChartExportButtons } from '../export/ChartExportButtons.tsx';
import { CAPACITY_COLOUR, CapacityMarker } from './CapacityMarker.tsx';
import { ChartPanel } from './ChartPanel.tsx';
import { KneeLegend } from './KneeLegend.tsx';
import { KneeMarker } from './KneeMarker.tsx';
import { OFFERED_COLOUR, OfferedLine } from './OfferedLine.tsx';
import { QpsChart } from './QpsChart.tsx';
import { UslCurve } from './UslCurve.tsx';

/** Throughput against the swept level: the measurements, the USL fit (with its toggle), an open loop's offered line, the knee. */
export function ThroughputPanel({
  view,
  xControl,
  trusted,
  onToggleFit,
}: {
  view: RunViewModel;
  /** The level axis' linear/log control (shown on this, the first chart). */
  xControl: ReactNode;
  /** The analysis' `usl_trusted`. */
  trusted: boolean;
  onToggleFit: () => void;
}) {
  const { run, fit, hasFitLine, showFit, openLoop, knee, measuring } = view;
  const capacity = view.capacity?.marker ?? null;
  const subtitle = `successful requests per second against ${run.parameter}`;
  return (
    <ChartPanel
      title="Throughput"
      subtitle={<>successful requests per second against {run.parameter}</>}
      controls={
        <>
          {xControl}
          <ChartExportButtons
            spec={runChartExport(run, 'Throughput', subtitle, [
              { label: 'throughput', colour: QPS_SERIES.color },
              ...(showFit ? [{ label: USL_SERIES.label, colour: USL_SERIES.color, dashed: true }] : []),
              ...(openLoop ? [{ label: 'offered = achieved', colour: OFFERED_COLOUR, dashed: true }] : []),
              ...(capacity ? [{ label: `${capacity.label} (under ${view.slo?.text ?? ''})`, colour: CAPACITY_COLOUR }] : []),
            ])}
          />
        </>
      }
      legend={
        <>
          <span className="legend-item" style={{ color: QPS_SERIES.color }}>
            <span className="legend-dot filled" />
            <span className="legend-text">throughput</span>
          </span>
          {hasFitLine && fit ? (
            <label
              className="legend-toggle"
              data-testid="toggle-usl"
              title={`The Universal Scalability Law fitted to the completed levels (R² = ${formatR2(fit.r2, 3)}); shown by default when the analysis trusts the fit`}
            >
              <input type="checkbox" checked={showFit} onChange={onToggleFit} />
              <span className="swatch swatch-dashed" style={{ color: USL_SERIES.color }} />
              {USL_SERIES.label}
              <span className="muted">R² {formatR2(fit.r2)}</span>
            </label>
          ) : null}
          {openLoop ? (
            <span className="legend-item" style={{ color: OFFERED_COLOUR }} title="An open loop offers a fixed rate: below saturation achieved throughput sits on this line, past it it falls below">
              <span className="swatch swatch-dashed" style={{ color: OFFERED_COLOUR }} />
              <span className="legend-text">offered = achieved</span>
            </span>
          ) : null}
          <KneeLegend marker={knee} />
          {capacity ? (
            <span className="legend-item" style={{ color: CAPACITY_COLOUR }} title={capacity.title} data-testid="capacity-legend">
              <span className="swatch" style={{ background: CAPACITY_COLOUR }} />
              <span className="legend-text">
                {capacity.label}
                {capacity.bracket ? ', bracket shaded' : ''}
              </span>
            </span>
          ) : null}
          {measuring !== null ? (
            <span className="legend-item" style={{ color: QPS_SERIES.color }}>
              <span className="legend-dot" />
              <span className="legend-text">
                {run.parameter} {formatLevel(measuring)}: still being measured
              </span>
            </span>
          ) : null}
        </>
      }
      empty={view.waiting}
      testId="qps-chart"
    >
      <QpsChart data={view.qps} parameter={run.parameter} xLabel={view.xLabel} xScale={view.xScale} showFit={showFit}>
        {openLoop ? <OfferedLine points={view.offered} /> : null}
        <CapacityMarker marker={capacity} />
        <KneeMarker marker={knee} />
        {showFit ? <UslCurve points={view.fitPoints} trusted={trusted} /> : null}
      </QpsChart>
    </ChartPanel>
  );
}
