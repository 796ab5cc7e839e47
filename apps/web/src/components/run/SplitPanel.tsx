'use client';

import { runChartExport, type RunViewModel } from '../../lib/run-view.ts';
import { SPLIT_SERIES } from '../../lib/series.ts';
import { ChartExportButtons } from '../export/ChartExportButtons.tsx';
import { ChartPanel } from './ChartPanel.tsx';
import { SplitChart } from './SplitChart.tsx';

/** Where the median request's time goes: compute, queue and the rest per level, from the target's Server-Timing header. */
export function SplitPanel({ view }: { view: RunViewModel }) {
  const { run, split, waiting } = view;
  const subtitle = `p50 of each component per ${run.parameter}, milliseconds`;
  return (
    <ChartPanel
      title="Where the median request's time goes"
      subtitle={<>p50 of each component per {run.parameter}, milliseconds</>}
      controls={
        <ChartExportButtons
          spec={runChartExport(
            run,
            'p50 split',
            subtitle,
            SPLIT_SERIES.map((s) => ({ label: s.label, colour: s.color })),
          )}
        />
      }
      legend={SPLIT_SERIES.map((s) => (
        <span key={s.key} className="legend-item" title={s.hint}>
          <span className="swatch" style={{ background: s.color }} />
          {s.label}
        </span>
      ))}
      footnote="Each component is its own median, so the stack is close to, not exactly, the latency p50. other = latency − compute − queue (interface and network)."
      empty={
        waiting ??
        (split.hasServerTiming ? null : run.tags.import_tool !== undefined ? (
          // An import holds what its tool kept: the target may well send the header.
          <>
            No compute/queue split: the imported {run.tags.import_tool} file holds no <code>Server-Timing</code> headers (vegeta keeps
            them, JMeter in an XML JTL saved with <code>responseHeaders=true</code>; k6, oha and Gatling never do).
          </>
        ) : (
          <>
            No compute/queue split: the target sends no <code>Server-Timing</code> header (e.g.{' '}
            <code>Server-Timing: queue;dur=12.5, compute;dur=48.1</code>).
          </>
        ))
      }
      testId="split-chart"
      className="chart-wide"
    >
      <SplitChart data={split} parameter={run.parameter} />
    </ChartPanel>
  );
}
