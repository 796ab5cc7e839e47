import { kneedle } from './kneedle.ts';

interface Point {
  level: number;
  qps: number;
}

export interface ThroughputKnee {
  level: number;
  qps: number;
  peakQps: number;
  /** Growth above the knee as a share of proportional growth: 0 is flat, 1 is linear. */
  gainAbove: number;
}

/** Points within 5% of the peak still belong to the plateau; a deeper fall is the retrograde tail. */
const PLATEAU = 0.95;
/** Throughput at the knee must exceed the smallest level's by 10%, or nothing bent. */
const MIN_RISE = 1.1;
/** Above a knee, throughput must grow at less than a third of the proportional rate. */
const MAX_GAIN_ABOVE = 1 / 3;

const KNEEDLE = { curve: 'concave', direction: 'increasing', S: 1 } as const;

/** Spans at least 8× with a median step of at least ×1.3: a sweep meant to be read on a log axis. */
function isGeometric(levels: readonly number[]): boolean {
  const first = levels[0] ?? 0;
  const last = levels[levels.length - 1] ?? 0;
  if (!(first > 0) || last / first < 8) return false;
  const ratios = levels.slice(1).map((l, i) => l / (levels[i] ?? l)).sort((a, b) => a - b);
  return (ratios[Math.floor(ratios.length / 2)] ?? 1) >= 1.3;
}

/**
 * The throughput knee: Kneedle on the rising part of the curve (up to the last level within 5%
 * of the peak, so a retrograde tail cannot pull the knee), accepted only if throughput above it
 * grows much slower than the load. Kneedle's sensitivity alone would call a knee on any concave
 * curve, even one that still scales at 90%.
 */
export function throughputKnee(points: readonly Point[]): ThroughputKnee | null {
  const peakQps = Math.max(...points.map((p) => p.qps));
  let end = points.length - 1;
  while (end > 0 && (points[end]?.qps ?? 0) < PLATEAU * peakQps) end--;
  const head = points.slice(0, end + 1);
  if (head.length < 3) return null;

  const qps = head.map((p) => p.qps);
  const levels = head.map((p) => p.level);
  // Geometric sweeps (1, 2, 4 … 512) are read on a log axis, and on a linear one their first
  // levels crowd into the first percent of x, where Kneedle cannot tell 2 from 4 under noise.
  // When the log view shows no bend (it needs more points to clear the S = 1 threshold), the
  // linear view still may.
  const kneeIndex = (xs: number[]) => {
    const { knee } = kneedle(xs, qps, KNEEDLE);
    return knee === null ? -1 : xs.indexOf(knee);
  };
  // Index 0 cannot be a knee (nothing rose before it); kneed can return it when the
  // difference curve starts at a clipped local maximum.
  let k = isGeometric(levels) ? kneeIndex(levels.map(Math.log)) : -1;
  if (k <= 0) k = kneeIndex(levels);
  const knee = head[k];
  const first = head[0];
  // A bend needs a rise before it: on a flat (serialized) curve Kneedle only finds noise.
  if (knee === undefined || first === undefined || k === 0 || knee.qps < MIN_RISE * first.qps) return null;

  // Compare the knee with the best level above it: the trend, not one noisy step.
  let best = knee;
  for (const p of head.slice(k + 1)) if (p.qps > best.qps) best = p;
  const gainAbove = best === knee ? 0 : (best.qps / knee.qps - 1) / (best.level / knee.level - 1);
  if (gainAbove > MAX_GAIN_ABOVE) return null;
  return { level: knee.level, qps: knee.qps, peakQps, gainAbove };
}
