import type { ChangeVerdict, MetricDelta } from '@kneeboard/contracts';
import { relativeChangeInterval } from './resample.ts';

export interface DeltaInput {
  base: number | null;
  head: number | null;
  /** Bootstrap replicates of the statistic for each run; null when there is too little data. */
  baseReplicates: Float64Array | null;
  headReplicates: Float64Array | null;
  /** QPS: higher is better; latency: lower is better. */
  higherIsBetter: boolean;
  minEffect: number;
  confidence: number;
}

/**
 * A change is called only when it is both statistically clear (the interval excludes 0) and big
 * enough to matter (|change| ≥ minEffect). Within-run sampling noise is what the interval sees;
 * run-to-run noise on a busy machine is what minEffect absorbs.
 */
export function metricDelta(input: DeltaInput): MetricDelta {
  const { base, head } = input;
  const change = base !== null && head !== null && base > 0 ? head / base - 1 : null;
  const ci = input.baseReplicates && input.headReplicates ? relativeChangeInterval(input.baseReplicates, input.headReplicates, input.confidence) : null;
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
