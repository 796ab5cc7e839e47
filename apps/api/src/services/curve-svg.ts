import { levelFlags } from '@kneeboard/analysis/compare';
import { capacityHeadline, capacityLabel, colourFor, latencyKeyOf, renderCurveSvg, sloLines, type CapacityMark, type ChartSeries, type SloThresholdMark } from '@kneeboard/svg-charts';
import { levelSelectionContains, parseSlos, type Capacity, type RunDetail, type SvgViewQuery } from '@kneeboard/contracts';

function seriesOf(detail: RunDetail, index: number, dashed: boolean, label: string, view: SvgViewQuery): ChartSeries {
  const flags = levelFlags(detail.curve, detail.analysis.littles_law, detail.run.parameter);
  return {
    label,
    colour: colourFor(index),
    dashed,
    points: detail.curve
      .filter((p) => levelSelectionContains(view.levels, p.level))
      .map((p) => ({ level: p.level, qps: p.qps, p50_ms: p.p50_ms, p90_ms: p.p90_ms, p99_ms: p.p99_ms, p999_ms: p.p999_ms, flag: flags.get(p.level) ?? null })),
  };
}

/** The view's drawing options in the chart's terms. */
const drawing = (view: SvgViewQuery) => ({
  latency: view.metrics?.map(latencyKeyOf),
  yScale: view.y,
});

const kneeMarker = (detail: RunDetail) => {
  const knee = detail.analysis.knee;
  return knee ? { level: knee.level, label: `knee · ${knee.level}` } : null;
};

/** An SLO threshold's colour in the embed: apart from the runs' palette and the knee's red. */
const THRESHOLD_COLOUR = '#c2410c';

/**
 * Capacity under the SLOs it was judged by: the thresholds on the latency panel, the capacity and
 * its bracket on the throughput panel, the page's capacity line under the subtitle.
 */
function capacityDrawing(capacity: Capacity | undefined, parameter: string): { thresholds?: SloThresholdMark[]; capacity?: CapacityMark | null; caption?: string } {
  if (!capacity) return {};
  const parsed = parseSlos(capacity.slos);
  const thresholds = parsed.ok ? sloLines(parsed.clauses).map((l) => ({ ms: l.ms, label: `SLO ${l.label}`, colour: THRESHOLD_COLOUR })) : [];
  const mark =
    capacity.level !== null && capacity.qps !== null
      ? { level: capacity.level, label: capacityLabel(capacity.qps), bracket: capacity.bracket.breaks ? { from: capacity.level, to: capacity.bracket.breaks.level } : null }
      : null;
  return { thresholds, capacity: mark, caption: capacityHeadline(capacity, parameter) };
}

/** `capacity`: the run's capacity under `slo=` (run-capacity.ts), drawn with its SLOs. */
export function runCurveSvg(detail: RunDetail, view: SvgViewQuery = {}, capacity?: Capacity): string {
  const { run } = detail;
  return renderCurveSvg({
    title: `${run.service} ${run.release}${run.name ? ` — ${run.name}` : ''}`,
    subtitle: detail.analysis.verdict,
    parameter: run.parameter,
    series: [seriesOf(detail, 0, false, run.release, view)],
    marker: kneeMarker(detail),
    ...drawing(view),
    ...capacityDrawing(capacity, run.parameter),
  });
}

/** The base is dashed in the first colour; heads are solid, in the colours the web app gives them. */
export function compareCurveSvg(details: RunDetail[], summary: string, view: SvgViewQuery = {}): string {
  const [base] = details;
  if (!base) throw new Error('nothing to draw');
  return renderCurveSvg({
    title: `${base.run.service}: ${details.map((d) => d.run.release).join(' vs ')}`,
    subtitle: summary,
    parameter: base.run.parameter,
    series: details.map((d, i) => seriesOf(d, i, i === 0, i === 0 ? `${d.run.release} (base)` : d.run.release, view)),
    marker: kneeMarker(base),
    ...drawing(view),
  });
}
