/**
 * Slot for the knee / USL overlay. The QPS and latency charts render their children inside the
 * plot, so this can return a Recharts `<ReferenceLine x={level} />` (and the USL curve a `<Line>`)
 * once the analysis is designed into the page. It receives the knee level from `detail.analysis`
 * (sent by the API with every run detail and live snapshot) and deliberately draws nothing yet.
 */
export function KneeMarker(_props: { level: number | null }) {
  return null;
}
