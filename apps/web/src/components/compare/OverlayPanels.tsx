'use client';

import type { CompareCharts, OverlayData } from '../../lib/compare-series.ts';
import { formatMs, formatQps } from '@kneeboard/contracts/figures';
import { LATENCY_SERIES } from '../../lib/series.ts';
import { ChartExportButtons } from '../export/ChartExportButtons.tsx';
import { ChartPanel } from '../run/ChartPanel.tsx';
import { FIT_DASH, OverlayChart, type OverlayAxes } from './OverlayChart.tsx';
import { RunLegend } from './RunSwatch.tsx';

/** Three printed charts (and their headings) fit one A4 or Letter page, scaled to its width (ReviewCharts). */
const PRINT_CHART_HEIGHT = 190;

const latencyLabel = (metric: OverlayData['metric']) => LATENCY_SERIES.find((s) => s.key === metric)?.label ?? metric;

interface PanelSpec {
  id: string;
  title: string;
  subtitle: string;
  data: OverlayData;
  axes: OverlayAxes;
  empty: string | null;
  footnote?: string;
}

/**
 * The comparison's charts: throughput, then one chart per chosen latency percentile, every run on
 * the same level axis. `printWidth` draws them at a fixed size with no hover or download buttons
 * (the printed review); otherwise they fill their panels and can be downloaded.
 */
export function OverlayPanels({ charts, parameter, heading, printWidth }: { charts: CompareCharts; parameter: string; heading: string; printWidth?: number }) {
  const x = { parameter, xScale: charts.xScale, xDomain: charts.xDomain, xTicks: charts.xTicks };
  const none = charts.levels.length === 0 ? 'No level is inside the chosen range.' : null;
  const panels: PanelSpec[] = [
    {
      id: 'qps',
      title: 'Throughput',
      subtitle: `successful requests per second against ${parameter}`,
      data: charts.qps,
      axes: { ...x, yScale: 'linear', yLabel: 'throughput (req/s)', format: (v) => `${formatQps(v)} req/s` },
      empty: none,
    },
    ...charts.latency.map((d): PanelSpec => {
      const label = latencyLabel(d.metric);
      return {
        id: d.metric,
        title: `${label} latency`,
        subtitle: `${label} of successful requests, milliseconds`,
        data: d,
        axes: { ...x, yScale: charts.yScale, yLabel: `${label} latency (ms)`, format: (v) => `${formatMs(v)} ms` },
        empty: none ?? (d.yAxis === null ? 'No latency to draw on a log axis.' : null),
        footnote: d.droppedOnLog > 0 ? `${d.droppedOnLog} value(s) of 0 ms cannot be drawn on a log axis and are left out.` : undefined,
      };
    }),
  ];
  const groups = charts.series.filter((s) => s.member === 0);
  const legend = groups.map((s) => ({ label: s.role === 'base' ? `${s.label} (base)` : s.label, colour: s.colour, dashed: s.dashed }));
  const fitLegend = charts.fits.length > 0 ? [{ label: 'USL fits (dotted)', colour: '#5a6472', dash: FIT_DASH }] : [];
  const releases = groups.map((s) => s.label).join(' vs ');

  return (
    <div className={printWidth === undefined ? 'charts' : 'charts print-charts'}>
      {panels.map((p) => (
        <ChartPanel
          key={p.id}
          title={p.title}
          subtitle={p.subtitle}
          testId={`overlay-${p.id}`}
          controls={
            printWidth === undefined ? (
              <ChartExportButtons spec={{ title: `${heading} — ${p.title}`, subtitle: p.subtitle, legend: p.id === 'qps' ? [...legend, ...fitLegend] : legend, fileParts: [charts.series[0]?.run.service ?? '', releases, p.title] }} />
            ) : undefined
          }
          legend={<RunLegend series={charts.series} knees={charts.knees.length > 0} fits={p.id === 'qps' && charts.fits.length > 0} untrustedFits={p.id === 'qps' ? charts.fits.filter((f) => !f.trusted).length : 0} />}
          footnote={p.footnote}
          empty={p.empty}
        >
          <OverlayChart data={p.data} axes={p.axes} fits={p.id === 'qps' ? charts.fits : []} knees={charts.knees} width={printWidth} height={printWidth === undefined ? undefined : PRINT_CHART_HEIGHT} />
        </ChartPanel>
      ))}
    </div>
  );
}
