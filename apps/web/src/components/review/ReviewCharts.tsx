'use client';

import type { RunDetail } from '@kneeboard/contracts';
import { compareCharts } from '../../lib/compare-series.ts';
import type { ChartSettings } from '../../lib/view-state.ts';
import { OverlayPanels } from '../compare/OverlayPanels.tsx';

/**
 * Printed charts are drawn at about the printable width of A4 and Letter with the review's margins
 * (695 and 718 CSS px) and scaled by CSS to the width they get (review.css), so on paper they are
 * within 3% of their drawn size — three still fit a page — and fill it.
 */
export const PRINT_CHART_WIDTH = 700;

export function ReviewCharts({ details, sizes, settings, heading }: { details: RunDetail[]; sizes: number[]; settings: ChartSettings; heading: string }) {
  const charts = compareCharts(details, settings, sizes);
  return <OverlayPanels charts={charts} parameter={details[0]?.run.parameter ?? 'level'} heading={heading} printWidth={PRINT_CHART_WIDTH} />;
}
