import { LatencyMetric, metricTokens } from '@kneeboard/contracts';

/** A latency percentile as a curve point's field: `p50_ms` … `p999_ms`. */
export type LatencyKey = `${LatencyMetric}_ms`;

/** Every percentile in drawing order (p50, p90, p99, p99.9), as `metrics=` names them. */
export const LATENCY_METRICS: readonly LatencyMetric[] = LatencyMetric.options;

/** `p99` → `p99_ms`: a `metrics=` word to the curve field it draws. */
export function latencyKeyOf(metric: LatencyMetric): LatencyKey {
  return `${metric}_ms`;
}

/** `p99_ms` → `p99`: a curve field to its `metrics=` word. */
export function metricOf(key: LatencyKey): LatencyMetric {
  return key.slice(0, -'_ms'.length) as LatencyMetric;
}

/**
 * The percentiles a lenient reader (the web app's URL) takes from a `metrics=` list: the known
 * words' fields, each once, in drawing order; unknown words are left out. The strict reader is
 * contracts' SvgViewQuery (the API's embeds), which refuses them; both split the list with
 * `metricTokens`.
 */
export function latencyKeysIn(text: string): LatencyKey[] {
  const known = new Set(metricTokens(text).flatMap((t) => (LatencyMetric.safeParse(t).success ? [t] : [])));
  return LATENCY_METRICS.filter((m) => known.has(m)).map(latencyKeyOf);
}
