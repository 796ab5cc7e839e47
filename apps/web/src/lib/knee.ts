/**
 * Prepare the knee for the page: the marker both level charts draw, and the evidence the "How we
 * found it" disclosure lists. The analysis itself comes from the API (`RunAnalysis`); this only
 * decides what can be drawn and how it reads.
 */
import type { KneeMethod, RunAnalysis } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';
import type { ScaleKind } from '@kneeboard/chart-prep';

/** What each detector looks at, in words a reader can check against the charts. */
export const KNEE_METHOD_LABELS: Record<KneeMethod, string> = {
  kneedle: 'throughput bends (Kneedle)',
  latency: 'p50 grows with the load',
  usl_peak: 'peak of the USL fit (N*)',
  open_saturation: 'last offered rate achieved',
  open_p99: 'p99 bends upward (Kneedle)',
};

export interface KneeMarkerSpec {
  level: number;
  /** Drawn next to the line: `knee · 8`. */
  label: string;
  /** The knee's reason, shown on hover (SVG title) and in the legend's title. */
  title: string;
  method: KneeMethod;
}

/**
 * The knee to mark on a level axis, or null when there is none or the axis cannot place it
 * (outside the drawn domain, or ≤ 0 on a log axis). A live run's knee moves as levels arrive: the
 * marker simply follows the latest analysis.
 */
export function kneeMarker(analysis: RunAnalysis, xDomain: readonly [number, number], xScale: ScaleKind): KneeMarkerSpec | null {
  const knee = analysis.knee;
  if (!knee || !Number.isFinite(knee.level)) return null;
  if (xScale === 'log' && !(knee.level > 0)) return null;
  if (knee.level < xDomain[0] || knee.level > xDomain[1]) return null;
  return { level: knee.level, label: `knee · ${formatLevel(knee.level)}`, title: knee.reason, method: knee.method };
}

export interface KneeEvidence {
  method: KneeMethod;
  /** `throughput bends (Kneedle)` */
  methodLabel: string;
  level: number;
  /** `concurrency 8`, `concurrency 17.8` (N* is fitted, not swept) */
  levelText: string;
  reason: string;
  /** The candidate the analysis chose as the knee. */
  chosen: boolean;
}

/** Every detector's answer, the chosen one first, for the evidence list (method → level). */
export function kneeEvidence(analysis: RunAnalysis, parameter: string): KneeEvidence[] {
  const knee = analysis.knee;
  const rows = analysis.knee_candidates.map((c) => ({
    method: c.method,
    methodLabel: KNEE_METHOD_LABELS[c.method],
    level: c.level,
    levelText: `${parameter} ${formatLevel(c.level)}`,
    reason: c.reason,
    chosen: knee !== null && c.method === knee.method && c.level === knee.level,
  }));
  // Stable: the chosen one first, the others in the analysis' order.
  return [...rows.filter((r) => r.chosen), ...rows.filter((r) => !r.chosen)];
}

/** Size of the `knee · 8` tag, from an average glyph width at 11 px semibold. */
export const KNEE_TAG = { height: 17, charWidth: 6.2, padX: 7, gap: 4 } as const;

/**
 * Where the knee's tag goes: centred on the line, just above the plot area (in the chart's top
 * margin, so it can never sit on a data point), and slid sideways to stay over the plot when the
 * knee is near either end.
 */
export function kneeTagBox(lineX: number, label: string, plot: { x: number; y: number; width: number }): { x: number; y: number; width: number; height: number } {
  const width = Math.round(label.length * KNEE_TAG.charWidth + 2 * KNEE_TAG.padX);
  const lo = plot.x;
  const hi = plot.x + plot.width - width;
  const x = Math.max(lo, Math.min(hi, lineX - width / 2));
  return { x, y: plot.y - KNEE_TAG.height - KNEE_TAG.gap, width, height: KNEE_TAG.height };
}
