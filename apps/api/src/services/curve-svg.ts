import { colourFor, renderCurveSvg, type ChartSeries } from '@kneeboard/svg-charts';
import type { RunDetail } from '@kneeboard/contracts';

function seriesOf(detail: RunDetail, index: number, dashed: boolean, label: string): ChartSeries {
  return {
    label,
    colour: colourFor(index),
    dashed,
    points: detail.curve.map((p) => ({ level: p.level, qps: p.qps, p50_ms: p.p50_ms, p99_ms: p.p99_ms })),
  };
}

const kneeMarker = (detail: RunDetail) => {
  const knee = detail.analysis?.knee;
  return knee ? { level: knee.level, label: `knee · ${knee.level}` } : null;
};

export function runCurveSvg(detail: RunDetail): string {
  const { run } = detail;
  return renderCurveSvg({
    title: `${run.service} ${run.release} — ${run.name}`,
    subtitle: detail.analysis?.verdict,
    parameter: run.parameter,
    series: [seriesOf(detail, 0, false, run.release)],
    marker: kneeMarker(detail),
  });
}

/** The base is dashed in the first colour; heads are solid, in the colours the web app gives them. */
export function compareCurveSvg(details: RunDetail[], summary: string): string {
  const [base] = details;
  if (!base) throw new Error('nothing to draw');
  return renderCurveSvg({
    title: `${base.run.service}: ${details.map((d) => d.run.release).join(' vs ')}`,
    subtitle: summary,
    parameter: base.run.parameter,
    series: details.map((d, i) => seriesOf(d, i, i === 0, i === 0 ? `${d.run.release} (base)` : d.run.release)),
    marker: kneeMarker(base),
  });
}
