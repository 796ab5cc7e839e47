import { levenbergMarquardt } from 'ml-levenberg-marquardt';
import { Matrix, inverse } from 'ml-matrix';
import { amdahlCeiling, uslDenominator, uslPeakLevel, uslThroughput, type UslParams } from './usl.ts';

export interface Sample {
  level: number;
  qps: number;
}

export type UslModel = 'usl' | 'amdahl' | 'linear';

export interface UslFitResult extends UslParams {
  lambda_se: number | null;
  sigma_se: number | null;
  kappa_se: number | null;
  r2: number;
  /** N* for 'usl'; null when throughput never peaks. */
  peak_level: number | null;
  /** X(N*) for 'usl'; the ceiling λ/σ for 'amdahl' (approached, never reached); null for 'linear'. */
  peak_qps: number | null;
  model: UslModel;
  /** Residual standard error (same unit as qps), like R's `sigma()`: √(SSE / (n − p)). */
  residual_se: number | null;
}

/** Three parameters need at least three distinct levels; fewer gives no fit at all. */
export const MIN_FIT_LEVELS = 3;

/**
 * A term of the denominator that changes X at the largest measured level by less than this is
 * dropped: κ → Amdahl, then σ → linear. Two per cent is below what a single run can resolve.
 */
const NEGLIGIBLE_TERM = 0.02;

/**
 * The optimiser works on rescaled parameters so that all three are of order one and the
 * damping term of Levenberg–Marquardt (added to the diagonal of JᵀJ, unscaled) treats them
 * alike: λ̃ = λ/b with b = max X/N (a lower bound of λ), σ̃ = σ·Nmax and κ̃ = κ·Nmax², i.e. the
 * size of each term of the denominator at the largest level. Throughput is divided by its
 * maximum so the sum of squares, and with it the library's absolute tolerances, is of order one.
 */
interface Scaling {
  b: number;
  nRef: number;
  yScale: number;
}

type Scaled = [number, number, number];

function toParams([l, a, k]: Scaled, s: Scaling): UslParams {
  return { lambda: l * s.b, sigma: a / s.nRef, kappa: k / (s.nRef * s.nRef) };
}

function toScaled(p: UslParams, s: Scaling): Scaled {
  return [p.lambda / s.b, p.sigma * s.nRef, p.kappa * s.nRef * s.nRef];
}

function scaledModel(s: Scaling) {
  const c = s.b / s.yScale;
  const n2 = s.nRef * s.nRef;
  return ([l, a, k]: number[]) =>
    (n: number) =>
      (c * (l ?? 0) * n) / uslDenominator(n, (a ?? 0) / s.nRef, (k ?? 0) / n2);
}

/** ∂ŷ/∂(λ̃, σ̃, κ̃); `free` zeroes the partials of parameters held fixed, which LM then never moves. */
function scaledJacobian(s: Scaling, free: readonly [boolean, boolean, boolean]) {
  const c = s.b / s.yScale;
  const n2 = s.nRef * s.nRef;
  return ([l = 0, a = 0, k = 0]: number[]) =>
    (n: number): number[] => {
      const d = uslDenominator(n, a / s.nRef, k / n2);
      const common = (c * l * n * (n - 1)) / (d * d);
      return [free[0] ? (c * n) / d : 0, free[1] ? -common / s.nRef : 0, free[2] ? (-common * n) / n2 : 0];
    };
}

function sse(samples: readonly Sample[], p: UslParams): number {
  let total = 0;
  for (const { level, qps } of samples) total += (qps - uslThroughput(level, p)) ** 2;
  return total;
}

/**
 * Start for λ = b: with λ fixed, λN/X − 1 = σ(N−1) + κN(N−1) is linear in σ and κ (Gunther's
 * quadratic transform). Solved by least squares through the origin, clamped to σ ∈ [0,1], κ ≥ 0.
 */
function linearisedStart(samples: readonly Sample[], s: Scaling): Scaled {
  let s11 = 0;
  let s12 = 0;
  let s22 = 0;
  let t1 = 0;
  let t2 = 0;
  for (const { level: n, qps } of samples) {
    const u = n - 1;
    const v = n * (n - 1);
    const z = (s.b * n) / qps - 1;
    s11 += u * u;
    s12 += u * v;
    s22 += v * v;
    t1 += u * z;
    t2 += v * z;
  }
  const det = s11 * s22 - s12 * s12;
  let sigma = det > 0 ? (t1 * s22 - t2 * s12) / det : 0;
  let kappa = det > 0 ? (s11 * t2 - s12 * t1) / det : 0;
  if (sigma < 0 || kappa < 0) {
    // The unconstrained optimum is outside the feasible set: try each one-parameter edge.
    const sigmaOnly = s11 > 0 ? Math.max(0, t1 / s11) : 0;
    const kappaOnly = s22 > 0 ? Math.max(0, t2 / s22) : 0;
    const a = sse(samples, { lambda: s.b, sigma: Math.min(1, sigmaOnly), kappa: 0 });
    const b = sse(samples, { lambda: s.b, sigma: 0, kappa: kappaOnly });
    [sigma, kappa] = a <= b ? [sigmaOnly, 0] : [0, kappaOnly];
  }
  return toScaled({ lambda: s.b, sigma: Math.min(1, Math.max(0, sigma)), kappa: Math.max(0, kappa) }, s);
}

/**
 * Further starts, as multiples of the denominator's terms at the largest level: they cover
 * "mostly contention", "mostly coherency" and "both" so one bad basin cannot capture the fit.
 */
const GRID_STARTS: readonly Scaled[] = [
  [1, 0.5, 0.05],
  [1, 3, 0.5],
  [1.5, 0.2, 3],
];

/**
 * The library stops only on an absolute error or an iteration cap, so the budget is split: a
 * short run from every start to find the right basin, then a longer one from the best. This
 * keeps a 50-level fit near one millisecond, which matters because it runs on every live update.
 */
const SCOUT_ITERATIONS = 12;
const POLISH_ITERATIONS = 50;

function runLm(
  samples: readonly Sample[],
  s: Scaling,
  start: Scaled,
  free: readonly [boolean, boolean, boolean],
  maxIterations: number,
): Scaled {
  const data = { x: samples.map((p) => p.level), y: samples.map((p) => p.qps / s.yScale) };
  const minValues = [1e-9, 0, 0];
  const maxValues = [1e9, s.nRef, s.nRef * s.nRef];
  const result = levenbergMarquardt(data, scaledModel(s), {
    // The library clamps after each step but not the start itself.
    initialValues: start.map((v, i) => Math.min(Math.max(v, minValues[i] ?? v), maxValues[i] ?? v)),
    jacobianFunction: scaledJacobian(s, free),
    minValues,
    maxValues,
    damping: 1e-2,
    maxIterations,
    errorTolerance: 1e-14,
  });
  const [l = start[0], a = start[1], k = start[2]] = result.parameterValues;
  return [l, a, k];
}

/** cov = s²·(JᵀJ)⁻¹ at the optimum, s² = SSE/(n − p): the usual asymptotic standard errors. */
function standardErrors(samples: readonly Sample[], s: Scaling, at: Scaled, freeCount: number, sumSq: number) {
  const dof = samples.length - freeCount;
  if (dof <= 0) return null;
  const jac = scaledJacobian(s, [true, true, true])(at);
  const rows = samples.map(({ level }) => jac(level).map((v) => v * s.yScale));
  const j = new Matrix(rows);
  let cov: Matrix;
  try {
    cov = inverse(j.transpose().mmul(j));
  } catch (error) {
    if (error instanceof Error) return null;
    throw error;
  }
  const s2 = sumSq / dof;
  const se = [0, 1, 2].map((i) => Math.sqrt(s2 * cov.get(i, i)));
  if (!se.every((v) => Number.isFinite(v))) return null;
  const [l = 0, a = 0, k = 0] = se;
  return { lambda_se: l * s.b, sigma_se: a / s.nRef, kappa_se: k / (s.nRef * s.nRef), residual_se: Math.sqrt(s2) };
}

function rSquared(samples: readonly Sample[], sumSq: number): number {
  const mean = samples.reduce((acc, p) => acc + p.qps, 0) / samples.length;
  const sst = samples.reduce((acc, p) => acc + (p.qps - mean) ** 2, 0);
  if (sst === 0) return sumSq <= 1e-12 * mean * mean ? 1 : 0;
  return 1 - sumSq / sst;
}

/**
 * Least-squares fit of the USL to (level, qps) samples with Levenberg–Marquardt from several
 * starts, keeping the best. Returns null with fewer than three distinct levels.
 */
export function fitUsl(input: readonly Sample[]): UslFitResult | null {
  const samples = input
    .filter((p) => Number.isFinite(p.level) && p.level > 0 && Number.isFinite(p.qps) && p.qps > 0)
    .sort((x, y) => x.level - y.level);
  if (new Set(samples.map((p) => p.level)).size < MIN_FIT_LEVELS) return null;

  const nRef = samples[samples.length - 1]?.level ?? 1;
  const scaling: Scaling = {
    b: Math.max(...samples.map((p) => p.qps / p.level)),
    nRef,
    yScale: Math.max(...samples.map((p) => p.qps)),
  };
  const all = [true, true, true] as const;

  let best: Scaled = linearisedStart(samples, scaling);
  let bestSse = sse(samples, toParams(best, scaling));
  for (const start of [best, ...GRID_STARTS]) {
    const candidate = runLm(samples, scaling, start, all, SCOUT_ITERATIONS);
    const e = sse(samples, toParams(candidate, scaling));
    if (e < bestSse) [best, bestSse] = [candidate, e];
  }
  const polished = runLm(samples, scaling, best, all, POLISH_ITERATIONS);
  const polishedSse = sse(samples, toParams(polished, scaling));
  if (polishedSse < bestSse) [best, bestSse] = [polished, polishedSse];

  let model: UslModel = 'usl';
  let freeCount = 3;
  let p = toParams(best, scaling);
  const dMax = uslDenominator(nRef, p.sigma, p.kappa);
  if ((p.kappa * nRef * (nRef - 1)) / dMax < NEGLIGIBLE_TERM) {
    // Coherency is invisible within the measured range: refit without it (Amdahl's law).
    model = 'amdahl';
    freeCount = 2;
    best = runLm(samples, scaling, [best[0], best[1], 0], [true, true, false], POLISH_ITERATIONS);
    best[2] = 0;
    p = toParams(best, scaling);
    if ((p.sigma * (nRef - 1)) / (1 + p.sigma * (nRef - 1)) < NEGLIGIBLE_TERM) {
      // No measurable contention either: X = λN, whose least-squares λ is closed-form.
      model = 'linear';
      freeCount = 1;
      const num = samples.reduce((acc, q) => acc + q.level * q.qps, 0);
      const den = samples.reduce((acc, q) => acc + q.level * q.level, 0);
      best = [num / den / scaling.b, 0, 0];
      p = toParams(best, scaling);
    }
    bestSse = sse(samples, p);
  }

  const se = standardErrors(samples, scaling, best, freeCount, bestSse);
  // USL throughput is only meaningful from one client up: a fitted N* below 1 means the fitted
  // curve falls from the first level on, so its peak is at 1 (not at N*, where X would be negative).
  const rawPeak = model === 'usl' ? uslPeakLevel(p) : null;
  const peakLevel = rawPeak !== null ? Math.max(1, rawPeak) : null;
  const peakQps = peakLevel !== null ? uslThroughput(peakLevel, p) : model === 'amdahl' ? amdahlCeiling(p) : null;
  return {
    ...p,
    lambda_se: se?.lambda_se ?? null,
    sigma_se: se?.sigma_se ?? null,
    kappa_se: se?.kappa_se ?? null,
    residual_se: se?.residual_se ?? null,
    r2: rSquared(samples, bestSse),
    peak_level: peakLevel,
    // A peak the contract can carry (finite, positive) or none: a degenerate fit must not break the run's page.
    peak_qps: peakQps !== null && Number.isFinite(peakQps) && peakQps > 0 ? peakQps : null,
    model,
  };
}
