/**
 * How a level's detail is sliced, as pure functions so the query and its tests agree: the width of
 * a timeline slice and the slices' range (anchored at measure_from, so warm-up and measured time
 * never share a slice), and the edges of a log-spaced latency histogram.
 */

/** Slice widths people read easily; the smallest that keeps a step to at most MAX_SLICES. */
const WIDTHS_MS = [100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 300_000];
const MAX_SLICES = 60;

export function timelineBucketMs(spanMs: number): number {
  return WIDTHS_MS.find((w) => spanMs / w <= MAX_SLICES) ?? Math.ceil(spanMs / MAX_SLICES / 60_000) * 60_000;
}

export interface SliceRange {
  /** First and last slice index; slice k covers [measure_from + k·w, measure_from + (k+1)·w). */
  kMin: number;
  kMax: number;
}

/** Negative indices are warm-up. kMax < 0 while a step has not reached measure_from yet. */
export function sliceRange(startedAt: number, measureFrom: number, end: number, widthMs: number): SliceRange {
  return {
    kMin: Math.floor((startedAt - measureFrom) / widthMs),
    kMax: Math.ceil((end - measureFrom) / widthMs) - 1,
  };
}

/** The part of slice k that lies inside [startedAt, end]: the first and last slices are clipped. */
export function sliceBounds(k: number, measureFrom: number, widthMs: number, startedAt: number, end: number): { from: number; to: number } {
  return { from: Math.max(startedAt, measureFrom + k * widthMs), to: Math.min(end, measureFrom + (k + 1) * widthMs) };
}

export const HISTOGRAM_BUCKETS = 40;

/** A latency floor for the log scale: a 0 ms request is counted in the first bucket. */
export const MIN_LOG_MS = 0.001;

/** n+1 log-spaced edges from lo to hi (lo clamped to MIN_LOG_MS); one bucket when lo = hi. */
export function logEdges(lo: number, hi: number, n = HISTOGRAM_BUCKETS): number[] {
  const a = Math.max(lo, MIN_LOG_MS);
  if (!(hi > a)) return [lo, hi];
  const ratio = hi / a;
  return Array.from({ length: n + 1 }, (_, i) => (i === 0 ? lo : i === n ? hi : a * ratio ** (i / n)));
}
