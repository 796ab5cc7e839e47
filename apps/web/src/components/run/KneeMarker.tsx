/**
 * Slot for the knee / USL fit overlay. The analysis endpoint (`GET /api/v1/runs/{id}/analysis`) does
 * not exist yet; when it does, this draws a ReferenceLine at the knee's level inside the QPS and
 * latency charts (they render their children inside the plot). Until then it draws nothing.
 */
export function KneeMarker(_props: { level: number | null }) {
  return null;
}
