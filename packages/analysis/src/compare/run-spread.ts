/**
 * The run-to-run spread of one metric, estimated from every repeat the comparison has: pooled
 * across levels and across both sides (a machine is as noisy for the base as for the head), on the
 * log scale, with each run's own sampling noise (known from its requests) taken out.
 *
 * Per side, the runs × levels table of log values is split the way a randomized-block ANOVA splits
 * it: a run's common shift (the whole run slower: mean square MS_R, n−1 degrees of freedom) and the
 * shift of single steps (the interaction, MS_E, (n−1)(L−1) degrees of freedom). The variance of one
 * run's value about its level's mean is MS_R/L + (1−1/L)·MS_E, and Satterthwaite's formula gives
 * its degrees of freedom: close to (n−1)(L−1) when steps move independently (interleaved repeats,
 * the way `kneeboard sweep --repeat` records them), close to n−1 when whole runs move together —
 * so two runs that differ by a common shift get the wide interval that deserves.
 */

/** One run's value at one level, and the variance of its logarithm from the run's own requests. */
export interface RunCell {
  value: number;
  sampling: number;
  /** Degrees of freedom of `sampling` (time buckets − 1 for QPS; Infinity for a bootstrap over many requests). */
  samplingDf: number;
}

/** Per side, per level (ascending, the same levels for every run), one cell per run; null where the run has too little data. */
export type SideCells = ReadonlyArray<ReadonlyArray<RunCell | null>>;

export interface Spread {
  /** Run-to-run variance of a log value beyond its sampling noise (machine noise), floored. */
  tau2: number;
  /** Degrees of freedom of that estimate (Infinity when nothing was estimated). */
  df: number;
  /** Whether the floor, not the data, set it. */
  floored: boolean;
  /** The runs' whole spread (sampling noise included) that `df` belongs to: τ² is it minus the sampling noise, as uncertain as it. */
  estimated: number;
}

/**
 * No machine repeats a load test better than this (relative standard deviation): two runs that
 * happen to agree to 0.1% are not taken as proof that the box is that quiet.
 */
export const RUN_TO_RUN_FLOOR = 0.01;

interface Anova {
  ssR: number;
  dfR: number;
  ssE: number;
  dfE: number;
  levels: number;
  samplingSum: number;
  cells: number;
}

/** The two-way split of one side's complete levels (every run measured them). */
function anovaOf(side: SideCells): Anova | null {
  const complete = side.filter((level) => level.length >= 2 && level.every((c) => c !== null && c.value > 0)) as RunCell[][];
  const n = complete[0]?.length ?? 0;
  const table = complete.filter((level) => level.length === n);
  const L = table.length;
  if (n < 2 || L === 0) return null;
  const y = table.map((level) => level.map((c) => Math.log(c.value)));
  const levelMean = y.map((row) => row.reduce((a, b) => a + b, 0) / n);
  const runMean = Array.from({ length: n }, (_, r) => y.reduce((a, row) => a + (row[r] as number), 0) / L);
  const grand = levelMean.reduce((a, b) => a + b, 0) / L;
  let ssR = 0;
  for (const m of runMean) ssR += L * (m - grand) ** 2;
  let ssE = 0;
  for (let l = 0; l < L; l++) for (let r = 0; r < n; r++) ssE += ((y[l]![r] as number) - (runMean[r] as number) - (levelMean[l] as number) + grand) ** 2;
  const samplingSum = table.reduce((a, level) => a + level.reduce((s, c) => s + c.sampling, 0), 0);
  return { ssR, dfR: n - 1, ssE, dfE: (n - 1) * (L - 1), levels: L, samplingSum, cells: n * L };
}

/** Spread estimated from earlier repeats of the service: a relative standard deviation and its degrees of freedom. */
export interface BorrowedSpread {
  sd: number;
  df: number;
}

/**
 * The spread from the sides' repeats, pooled with `borrowed` (earlier repeats of the service) when
 * given. Null when neither has any: then the intervals can only see the noise within each run.
 */
export function runToRunSpread(sides: readonly SideCells[], borrowed: BorrowedSpread | null = null): Spread | null {
  const parts = sides.map(anovaOf).filter((a): a is Anova => a !== null);
  let total = 0;
  let dfTotal = 0;
  let estimated = 0;
  if (parts.length > 0) {
    const ssR = parts.reduce((a, p) => a + p.ssR, 0);
    const dfR = parts.reduce((a, p) => a + p.dfR, 0);
    const ssE = parts.reduce((a, p) => a + p.ssE, 0);
    const dfE = parts.reduce((a, p) => a + p.dfE, 0);
    // Sides may differ in levels; weigh by each side's share of the run degrees of freedom.
    const L = parts.reduce((a, p) => a + p.levels * p.dfR, 0) / dfR;
    const msR = ssR / dfR;
    const msE = dfE > 0 ? ssE / dfE : 0;
    const a = dfE > 0 ? msR / L : msR;
    const b = dfE > 0 ? (1 - 1 / L) * msE : 0;
    const cellVariance = a + b;
    const meanSampling = parts.reduce((s, p) => s + p.samplingSum, 0) / parts.reduce((s, p) => s + p.cells, 0);
    total = Math.max(0, cellVariance - meanSampling);
    estimated = cellVariance;
    const denominator = a ** 2 / dfR + (dfE > 0 ? b ** 2 / dfE : 0);
    dfTotal = denominator > 0 ? Math.min(cellVariance ** 2 / denominator, dfR + dfE) : dfR + dfE;
  }
  if (borrowed && borrowed.df > 0) {
    // Earlier repeats' spread is of the runs' values, sampling noise included: as estimated.
    total = (total * dfTotal + borrowed.sd ** 2 * borrowed.df) / (dfTotal + borrowed.df);
    estimated = (estimated * dfTotal + borrowed.sd ** 2 * borrowed.df) / (dfTotal + borrowed.df);
    dfTotal += borrowed.df;
  }
  if (!(dfTotal > 0)) return null;
  const floor = RUN_TO_RUN_FLOOR ** 2;
  return { tau2: Math.max(total, floor), df: dfTotal, floored: total < floor, estimated };
}
