'use client';

import { useState, type MouseEvent } from 'react';
import { exportFileName, type LegendEntry } from '../../lib/chart-export.ts';
import { chartSvgFile, downloadBlob, svgToPng } from './snapshot.ts';

export interface ChartExportSpec {
  title: string;
  subtitle?: string;
  legend: LegendEntry[];
  /** File name parts: `['fusillade', 'v1.6.1 vs v1.6.2', 'throughput']`. */
  fileParts: string[];
}

/**
 * PNG and SVG download of the chart in the same panel (`.chart-panel`), with its title and legend
 * drawn in, made in the browser from what is on screen.
 */
export function ChartExportButtons({ spec }: { spec: ChartExportSpec }) {
  const [error, setError] = useState<string | null>(null);

  const save = async (e: MouseEvent<HTMLButtonElement>, kind: 'svg' | 'png') => {
    setError(null);
    const svg = e.currentTarget.closest('.chart-panel')?.querySelector<SVGSVGElement>('svg.recharts-surface');
    if (!svg) return setError('The chart is not drawn yet.');
    try {
      const file = chartSvgFile(svg, { title: spec.title, subtitle: spec.subtitle, legend: spec.legend });
      const blob = kind === 'svg' ? new Blob([file.svg], { type: 'image/svg+xml' }) : await svgToPng(file.svg, file.width, file.height);
      downloadBlob(blob, exportFileName(spec.fileParts, kind));
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <span className="export-buttons no-print" role="group" aria-label="Download the chart">
      <button type="button" className="small-button" onClick={(e) => void save(e, 'png')} data-testid="export-png" title="Download as PNG (2×), with title and legend">
        PNG
      </button>
      <button type="button" className="small-button" onClick={(e) => void save(e, 'svg')} data-testid="export-svg" title="Download as SVG, with title and legend">
        SVG
      </button>
      {error ? <span className="export-error">{error}</span> : null}
    </span>
  );
}
