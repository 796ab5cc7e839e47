/** Relative run-to-run spread (standard deviation of log values) per metric. */
export interface RunToRunNoise {
  qps: number;
  p50_ms: number;
  p99_ms: number;
  /** How many runs beyond one per release it was estimated from: the t-distribution's degrees of freedom. */
  df: number;
  /** Which earlier runs it was read from and as of when (their newest finish time, epoch ms): what a permalink pins. */
  basis?: { runs: string[]; asof: number };
}

export interface RepeatedValues {
  /** Per metric and level, the values of repeated runs of one release (≥ 2 each to count). */
  runs: number;
  /** How many releases those runs are repeats of. */
  releases: number;
  qps: number[][];
  p50_ms: number[][];
  p99_ms: number[][];
}

/** At least this many degrees of freedom before a pooled spread is used at all. */
const MIN_DEGREES_OF_FREEDOM = 2;

/** Pooled standard deviation of log values within each set: how much repeats of one release disagree. */
function pooledLogSpread(sets: number[][]): { sd: number; df: number } {
  let ss = 0;
  let df = 0;
  for (const set of sets) {
    const logs = set.filter((v) => v > 0).map(Math.log);
    if (logs.length < 2) continue;
    const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
    ss += logs.reduce((a, b) => a + (b - mean) ** 2, 0);
    df += logs.length - 1;
  }
  return { sd: df > 0 ? Math.sqrt(ss / df) : 0, df };
}

/**
 * The run-to-run noise of a service, measured from earlier repeats (several runs of one release,
 * level by level), or null when there were too few to say.
 */
export function runToRunNoise(repeats: RepeatedValues): RunToRunNoise | null {
  const qps = pooledLogSpread(repeats.qps);
  const p50 = pooledLogSpread(repeats.p50_ms);
  const p99 = pooledLogSpread(repeats.p99_ms);
  // Levels of one run share its machine, so they are not independent: the evidence is the runs.
  const df = repeats.runs - repeats.releases;
  if (df < MIN_DEGREES_OF_FREEDOM || Math.min(qps.df, p50.df, p99.df) < MIN_DEGREES_OF_FREEDOM) return null;
  return { qps: qps.sd, p50_ms: p50.sd, p99_ms: p99.sd, df };
}
