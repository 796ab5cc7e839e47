import type { ChangeVerdict, CompareMetric, EndpointHeadChange, LevelComparison } from '@kneeboard/contracts';
import { formatChange, formatLevel } from '@kneeboard/contracts/figures';

const METRIC_NAME: Record<CompareMetric, string> = { qps: 'QPS', p50_ms: 'p50', p99_ms: 'p99' };
/** The figure a reader looks at first: the tail, then the median, then throughput. */
const PREFERRED: readonly CompareMetric[] = ['p99_ms', 'p50_ms', 'qps'];
const WORD: Partial<Record<ChangeVerdict, string>> = { regression: 'slower', improvement: 'faster' };

/**
 * One endpoint's line in a comparison's per-endpoint summary, from that name's own comparison
 * (its verdict never contradicts its table, see headline.ts): the largest significant change in
 * the verdict's direction, on the first metric that has one — `checkout: faster (−18% p99 at 64)`.
 * The name is the caller's to escape where it is rendered.
 */
export function endpointHeadChange(name: string, verdict: ChangeVerdict, levels: readonly LevelComparison[]): EndpointHeadChange {
  let change: EndpointHeadChange['change'] = null;
  if (verdict === 'regression' || verdict === 'improvement') {
    for (const metric of PREFERRED) {
      const called = levels.filter((l) => l[metric].verdict === verdict && l[metric].change !== null);
      if (called.length === 0) continue;
      const top = called.reduce((a, b) => (Math.abs(b[metric].change as number) > Math.abs(a[metric].change as number) ? b : a));
      change = { metric, level: top.level, change: top[metric].change, ci_low: top[metric].ci_low, ci_high: top[metric].ci_high };
      break;
    }
  }
  const word = WORD[verdict] ?? verdict;
  const figure = change ? ` (${formatChange(change.change)} ${METRIC_NAME[change.metric]} at ${formatLevel(change.level)})` : '';
  return { verdict, change, sentence: `${name}: ${word}${figure}` };
}
