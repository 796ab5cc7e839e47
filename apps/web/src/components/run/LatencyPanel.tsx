'use client';

import type { ScaleKind } from '@kneeboard/chart-prep';
import { runChartExport, type RunViewModel } from '../../lib/run-view.ts';
import { LATENCY_SERIES, type LatencyKey } from '../../lib/series.ts';
import { ChartExportButtons } from '../export/ChartExportButtons.tsx';
import { ChartPanel, SCALE_OPTIONS, Segmented } from './ChartPanel.tsx';
import { KneeLegend } from './KneeLegend.tsx';
import { KneeMarker } from './KneeMarker.tsx';
import { LatencyChart } from './LatencyChart.tsx';
import { SloThresholds } from './SloThresholds.tsx';

const SUBTITLE = 'percentiles of successful requests, milliseconds';

/** Latency percentiles against the swept level: a toggle per percentile, the latency axis' scale, the knee. */
export function LatencyPanel({
  view,
  visible,
  yScale,
  onYScale,
  onToggle,
}: {
  view: RunViewModel;
  visible: LatencyKey[];
  yScale: ScaleKind;
  onYScale: (scale: ScaleKind) => void;
  onToggle: (key: LatencyKey) => void;
}) {
  const { run, latency, knee, waiting, thresholds } = view;
  return (
    <ChartPanel
      title="Latency"
      subtitle={<>percentiles of successful requests, milliseconds</>}
      controls={
        <>
          <Segmented label="latency axis" value={yScale} options={SCALE_OPTIONS} onChange={onYScale} testId="y-scale" />
          <ChartExportButtons
            spec={runChartExport(
              run,
              'Latency',
              SUBTITLE,
              [
                ...LATENCY_SERIES.filter((s) => visible.includes(s.key)).map((s) => ({ label: s.label, colour: s.color })),
                ...thresholds.map((t) => ({ label: `SLO ${t.label}`, colour: t.colour, dashed: true })),
              ],
            )}
          />
        </>
      }
      legend={
        <>
          {LATENCY_SERIES.map((s) => (
            <label key={s.key} className="legend-toggle" data-testid={`toggle-${s.key}`}>
              <input type="checkbox" checked={visible.includes(s.key)} onChange={() => onToggle(s.key)} />
              <span className="swatch" style={{ background: s.color }} />
              {s.label}
            </label>
          ))}
          {thresholds.map((t) => (
            <span key={t.slo} className="legend-item" style={{ color: t.colour }} data-testid="slo-legend">
              <span className="swatch swatch-dashed" style={{ color: t.colour }} />
              <span className="legend-text">SLO {t.label}</span>
            </span>
          ))}
          <KneeLegend marker={knee} />
        </>
      }
      footnote={
        yScale === 'log' && latency.droppedOnLog > 0
          ? `${latency.droppedOnLog} value(s) of 0 ms cannot be drawn on a log axis and are left out.`
          : undefined
      }
      empty={waiting ?? (visible.length === 0 ? 'Pick a percentile to draw.' : yScale === 'log' && latency.yAxis === null ? 'No latency samples yet.' : null)}
      testId="latency-chart"
    >
      <LatencyChart data={latency} visible={visible} parameter={run.parameter} xLabel={view.xLabel} xScale={view.xScale} yScale={yScale}>
        <SloThresholds thresholds={thresholds} />
        <KneeMarker marker={knee} />
      </LatencyChart>
    </ChartPanel>
  );
}
