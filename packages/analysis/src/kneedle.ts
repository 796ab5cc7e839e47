/**
 * Kneedle (Satopää, Albrecht, Irwin, Raghavan: "Finding a 'Kneedle' in a Haystack", ICDCS
 * workshops 2011), following the reference implementation `kneed` (arvkevi/kneed) step for step
 * so its published test curves give the same knees: normalise both axes to [0,1], turn the curve
 * into a concave increasing one, take the difference curve y − x, and call a knee at a local
 * maximum of it once the difference curve drops below that maximum minus S × the mean x step.
 * kneed's default `interp1d` smoothing evaluates the data at its own x, i.e. does nothing, so
 * there is no smoothing step here either.
 */
export type KneedleCurve = 'concave' | 'convex';
export type KneedleDirection = 'increasing' | 'decreasing';

export interface KneedleOptions {
  /** Sensitivity: how many "flat" mean x-steps the curve must fall by before a knee is called. */
  S?: number;
  curve?: KneedleCurve;
  direction?: KneedleDirection;
  /** false: return the first knee found; true: keep correcting and return the last one. */
  online?: boolean;
}

export interface KneedleResult {
  knee: number | null;
  kneeY: number | null;
  normKnee: number | null;
  normKneeY: number | null;
  /** Every knee found, in order of discovery (only more than one when `online`). */
  allKnees: number[];
}

const NONE: KneedleResult = { knee: null, kneeY: null, normKnee: null, normKneeY: null, allKnees: [] };

function normalise(a: readonly number[]): number[] | null {
  const min = Math.min(...a);
  const max = Math.max(...a);
  if (!(max > min)) return null;
  return a.map((v) => (v - min) / (max - min));
}

/**
 * Indices i where cmp(a[i], a[i±1]) holds, with neighbours clipped at the ends: what SciPy's
 * `argrelextrema(a, cmp)` returns with its default order 1 and mode 'clip'.
 */
function relativeExtrema(a: readonly number[], cmp: (x: number, y: number) => boolean): number[] {
  const out: number[] = [];
  const last = a.length - 1;
  for (let i = 0; i <= last; i++) {
    const v = a[i] ?? 0;
    if (cmp(v, a[Math.min(i + 1, last)] ?? 0) && cmp(v, a[Math.max(i - 1, 0)] ?? 0)) out.push(i);
  }
  return out;
}

/** Rewrites every combination as a concave increasing curve, as kneed's `transform_y` does. */
function toConcaveIncreasing(y: number[], direction: KneedleDirection, curve: KneedleCurve): number[] {
  const max = Math.max(...y);
  if (direction === 'decreasing') return curve === 'concave' ? y.slice().reverse() : y.map((v) => max - v);
  return curve === 'convex' ? y.map((v) => max - v).reverse() : y;
}

export function kneedle(x: readonly number[], y: readonly number[], options: KneedleOptions = {}): KneedleResult {
  const { S = 1, curve = 'concave', direction = 'increasing', online = false } = options;
  const n = x.length;
  if (n !== y.length || n < 3) return NONE;
  const xn = normalise(x);
  const yRaw = normalise(y);
  if (xn === null || yRaw === null) return NONE;
  const yn = toConcaveIncreasing(yRaw, direction, curve);
  const diff = yn.map((v, i) => v - (xn[i] ?? 0));

  const maxima = relativeExtrema(diff, (a, b) => a >= b);
  const minima = new Set(relativeExtrema(diff, (a, b) => a <= b));
  const firstMax = maxima[0];
  if (firstMax === undefined) return NONE;
  const maximaSet = new Set(maxima);
  const meanStep = Math.abs(((xn[n - 1] ?? 0) - (xn[0] ?? 0)) / (n - 1));
  const thresholds = maxima.map((i) => (diff[i] ?? 0) - S * meanStep);

  // A knee is found at index i of the concave-increasing form; the mirrored forms map it back.
  const mirrored = (curve === 'convex') !== (direction === 'decreasing');
  let found: Omit<KneedleResult, 'allKnees'> | null = null;
  const allKnees: number[] = [];
  let threshold = 0;
  let thresholdIndex = firstMax;
  let maximaSeen = 0;
  for (let i = firstMax; i < n - 1; i++) {
    if (maximaSet.has(i)) {
      threshold = thresholds[maximaSeen] ?? 0;
      thresholdIndex = i;
      maximaSeen++;
    }
    if (minima.has(i)) threshold = 0;
    if ((diff[i + 1] ?? 0) < threshold) {
      const k = mirrored ? n - 1 - thresholdIndex : thresholdIndex;
      const knee = x[k] ?? 0;
      found = { knee, kneeY: y[k] ?? 0, normKnee: xn[thresholdIndex] ?? 0, normKneeY: yn[thresholdIndex] ?? 0 };
      if (!allKnees.includes(knee)) allKnees.push(knee);
      // Offline, the first knee stands; online, each later one replaces it, as in kneed.
      if (!online) break;
    }
  }
  return found === null ? NONE : { ...found, allKnees };
}
