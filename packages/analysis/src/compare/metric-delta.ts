import type { ChangeVerdict, MetricDelta } from '@kneeboard/contracts';
import { logRatioInterval } from './log-interval.ts';
import type { Spread } from './run-spread.ts';

/** One side's statistic at a level: how many runs it averages and the sampling variance of its log mean. */
export interface SideVariance {
  runs: number;
  /** Σ (each run's sampling variance of the log value) ÷ runs²: from the requests themselves. */
  sampling: number;
  /** Σ (that run's term)² ÷ its degrees of freedom: how uncertain the sampling variance is (0 when exact). */
  samplingWeight: number;
}

export interface DeltaInput {
  base: number | null;
  head: number | null;
  /** Null when a side has too little data for an interval. */
  baseVariance: SideVariance | null;
  headVariance: SideVariance | null;
  /** Run-to-run spread of this metric (null: only the noise within each run is seen). */
  spread: Spread | null;
  /** QPS: higher is better; latency: lower is better. */
  higherIsBetter: boolean;
  minEffect: number;
  confidence: number;
}

/**
 * A change is called only when it is both statistically clear (the interval excludes 0) and big
 * enough to matter (|change| ≥ minEffect). The interval is on the log of head ÷ base: its variance
 * is the run-to-run spread over each side's runs plus each side's sampling noise, and Student's t
 * with Satterthwaite's degrees of freedom covers a spread estimated from few runs.
 */
export function metricDelta(input: DeltaInput): MetricDelta {
  const { base, head } = input;
  const change = base !== null && head !== null && base > 0 ? head / base - 1 : null;
  let ci: { low: number; high: number } | null = null;
  if (change !== null && head !== null && head > 0 && input.baseVariance && input.headVariance) {
    const b = input.baseVariance;
    const h = input.headVariance;
    const share = 1 / b.runs + 1 / h.runs;
    const between = input.spread ? input.spread.tau2 * share : 0;
    const betweenEstimated = input.spread ? input.spread.estimated * share : 0;
    ci = logRatioInterval(Math.log(1 + change), { between, betweenDf: input.spread?.df ?? Infinity, betweenEstimated, known: b.sampling + h.sampling, knownWeight: b.samplingWeight + h.samplingWeight }, input.confidence);
  }
  let verdict: ChangeVerdict = 'insufficient data';
  if (change !== null && ci !== null) {
    const clear = ci.low > 0 || ci.high < 0;
    const big = Math.abs(change) >= input.minEffect;
    if (clear && big) {
      const better = input.higherIsBetter ? change > 0 : change < 0;
      verdict = better ? 'improvement' : 'regression';
    } else {
      verdict = 'no significant change';
    }
  }
  return { base, head, change, ci_low: ci?.low ?? null, ci_high: ci?.high ?? null, verdict };
}
