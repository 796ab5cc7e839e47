import type { ChangeVerdict, CompareMetric, LevelComparison, MetricDelta } from '@kneeboard/contracts';
import { formatChangeWithInterval, formatLevel } from '@kneeboard/contracts/figures';

export interface TableRegression {
  level: number;
  metric: CompareMetric;
  change: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

const METRIC_NAME: Record<CompareMetric, string> = { qps: 'QPS', p50_ms: 'p50', p99_ms: 'p99' };
const METRICS: readonly CompareMetric[] = ['qps', 'p50_ms', 'p99_ms'];

/** Every significant regression in the per-level table, level by level. */
export function tableRegressions(rows: readonly LevelComparison[]): TableRegression[] {
  return rows.flatMap((r) => METRICS.filter((m) => r[m].verdict === 'regression').map((m) => ({ level: r.level, metric: m, change: r[m].change, ci_low: r[m].ci_low, ci_high: r[m].ci_high })));
}

/** `p99 regressed at concurrency 4 (+12% [+5%…+20%]) and 8 (+9% [+2%…+15%])`, one clause per metric. */
export function regressionClauses(regressions: readonly TableRegression[], parameter: string): string[] {
  return METRICS.flatMap((m) => {
    const of = regressions.filter((r) => r.metric === m);
    if (of.length === 0) return [];
    const at = of.map((r) => `${formatLevel(r.level)} (${formatChangeWithInterval(r.change, r.ci_low, r.ci_high)})`);
    const list = at.length === 1 ? at[0] : `${at.slice(0, -1).join(', ')} and ${at[at.length - 1]}`;
    return [`${METRIC_NAME[m]} regressed at ${parameter} ${list}`];
  });
}

/**
 * The headline's verdict and sentence. It never contradicts the table: a significant regression
 * at any level makes the verdict `regression` and is named, with its interval, even when peak
 * throughput improved ("Improvement in max throughput, but p99 regressed at concurrency 4 …").
 */
export function headline(
  summaryVerdict: ChangeVerdict,
  parts: { maxQps: MetricDelta; p99AtKnee: MetricDelta & { level: number | null } },
  rows: readonly LevelComparison[],
  parameter: string,
): { verdict: ChangeVerdict; text: string; regressions: TableRegression[] } {
  const regressions = tableRegressions(rows);
  if (regressions.length === 0) {
    const text = summaryVerdict === 'no significant change' ? 'No significant change' : `${summaryVerdict[0]?.toUpperCase()}${summaryVerdict.slice(1)}`;
    return { verdict: summaryVerdict, text, regressions };
  }
  const clauses = regressionClauses(regressions, parameter).join('; ');
  const improved = [
    parts.maxQps.verdict === 'improvement' ? 'max throughput' : null,
    parts.p99AtKnee.verdict === 'improvement' && parts.p99AtKnee.level !== null ? `p99 at ${parameter} ${formatLevel(parts.p99AtKnee.level)}` : null,
  ].filter((x): x is string => x !== null);
  const text = improved.length > 0 ? `Improvement in ${improved.join(' and ')}, but ${clauses}` : `Regression: ${clauses}`;
  return { verdict: 'regression', text, regressions };
}
