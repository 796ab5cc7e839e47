interface Point {
  level: number;
  qps: number;
}

export interface HardLimit {
  /** The first level on the plateau. */
  level: number;
  /** The plateau's median throughput. */
  qps: number;
  /** The last level measured (still on the plateau). */
  lastLevel: number;
}

/** The plateau starts at the first level within 10% of the peak… */
const ON_PLATEAU = 0.9;
/** …and its last level is within 5% of it: flat, not falling (a deeper fall is retrograde). */
const NOT_FALLING = 0.95;
/**
 * Three levels on the plateau at least: with two, a USL peak between them (both on its slopes) looks
 * just as flat. An interior level measured flat is what rules the hidden peak out.
 */
const MIN_PLATEAU_LEVELS = 3;
/**
 * The level just below the plateau still delivers 85% of the first level's throughput per unit: the
 * rise is linear right up to the corner. Contention bends the curve long before it flattens: an
 * Amdahl curve flat over a doubling has its previous level at well under half of X(1) per unit.
 */
const LINEAR_TO_CORNER = 0.85;

/**
 * A fixed cap (a worker pool, a semaphore, a core count) from the measurements alone: throughput
 * rises in proportion to the load, then stays flat from one level on, over at least a doubling and
 * three levels. Two levels below the corner are needed to see the linear rise; with only one (seed 001's 1 → 8)
 * a sharp corner and a gradual bend cannot be told apart, and the caller says "saturates".
 */
export function hardLimit(points: readonly Point[]): HardLimit | null {
  const first = points[0];
  const last = points[points.length - 1];
  if (first === undefined || last === undefined) return null;
  const peak = Math.max(...points.map((p) => p.qps));
  const k = points.findIndex((p) => p.qps >= ON_PLATEAU * peak);
  const corner = points[k];
  const below = points[k - 1];
  if (k < 2 || corner === undefined || below === undefined) return null;

  const plateau = points.slice(k);
  if (plateau.length < MIN_PLATEAU_LEVELS || last.level < 2 * corner.level) return null;
  if (plateau.some((p) => p.qps < ON_PLATEAU * peak) || last.qps < NOT_FALLING * peak) return null;
  const perUnit = (p: Point) => p.qps / p.level;
  if (perUnit(below) < LINEAR_TO_CORNER * perUnit(first)) return null;

  const sorted = plateau.map((p) => p.qps).sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? (sorted[Math.floor(mid)] ?? peak) : ((sorted[mid - 1] ?? peak) + (sorted[mid] ?? peak)) / 2;
  return { level: corner.level, qps: median, lastLevel: last.level };
}
