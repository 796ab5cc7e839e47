'use client';

import type { RunDetail } from '@kneeboard/contracts';
import { compareCharts } from '../../lib/compare-series.ts';
import type { ChartSettings } from '../../lib/view-state.ts';
import { OverlayPanels } from '../compare/OverlayPanels.tsx';

/** Printed charts are drawn at a fixed width that fits A4 and Letter with their margins (≤ 180 mm). */
export const PRINT_CHART_WIDTH = 640;

export function ReviewCharts({ details, sizes, settings, heading }: { details: RunDetail[]; sizes: number[]; settings: ChartSettings; heading: string }) {
  const charts = compareCharts(details, settings, sizes);
  return <OverlayPanels charts={charts} parameter={details[0]?.run.parameter ?? 'level'} heading={heading} printWidth={PRINT_CHART_WIDTH} />;
}
