interface Point {
  level: number;
  qps: number;
  p50_ms: number | null;
}

export interface LatencyKnee {
  level: number;
  p50: number;
  /** The first level above the knee where p50 is at least twice the knee's, if any. */
  doubledAt: { level: number; p50: number } | null;
  last: { level: number; p50: number };
}

/** Tolerance on "grows in proportion to the load": noise and a partly queued knee level. */
const PROPORTIONAL = 0.7;
/** Latency must rise by at least half over the levels above the knee to count as growth. */
const MIN_RISE = 1.5;

/**
 * The latency knee of a closed loop: the smallest level above which p50 grows as pure queueing.
 * Past saturation a closed loop holds N requests against a fixed capacity Xmax, so by Little's
 * law latency ≈ N ÷ Xmax and doubles when N doubles; below it latency stays near its low-load
 * value. So the knee is the first level k such that every level above has p50 of at least ~70%
 * of both p50(k)·N/N(k) (proportional growth) and N/Xmax (the queue explains it), and p50 did
 * rise materially by the last level.
 */
export function latencyKnee(points: readonly Point[]): LatencyKnee | null {
  const withP50 = points.filter((p): p is Point & { p50_ms: number } => p.p50_ms !== null && p.p50_ms > 0);
  const last = withP50[withP50.length - 1];
  if (withP50.length < 3 || last === undefined) return null;
  const xMax = Math.max(...points.map((p) => p.qps));

  for (let k = 0; k < withP50.length - 1; k++) {
    const knee = withP50[k];
    if (knee === undefined || last.p50_ms < MIN_RISE * knee.p50_ms) continue;
    const above = withP50.slice(k + 1);
    const queueing = above.every(
      (p) =>
        p.p50_ms >= PROPORTIONAL * knee.p50_ms * (p.level / knee.level) &&
        p.p50_ms >= (PROPORTIONAL * 1000 * p.level) / xMax,
    );
    if (!queueing) continue;
    const doubled = above.find((p) => p.p50_ms >= 2 * knee.p50_ms);
    return {
      level: knee.level,
      p50: knee.p50_ms,
      doubledAt: doubled ? { level: doubled.level, p50: doubled.p50_ms } : null,
      last: { level: last.level, p50: last.p50_ms },
    };
  }
  return null;
}
