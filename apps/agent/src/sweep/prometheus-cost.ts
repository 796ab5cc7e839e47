import { MAX_SERVER_METRIC_POINTS, textProblem, type ServerMetricsBatchInput } from '@kneeboard/contracts';
import { checkPromQuery, parsePromQueries, readPrometheusStep, type PromQuery } from '@kneeboard/server-metrics';
import type { StepReader, StepSpan } from './server-cost.ts';

/**
 * `--prometheus URL --promql name=expr` (issue 28): after each step, the agent asks a Prometheus
 * server for every query over the step's window (query_range, a value a second) and posts the
 * values as the other sources' seconds are posted. Prometheus keeps the series, so nothing is read
 * during the step: the load is not touched at all. A failure is the step's named gap, never fatal.
 */

/** After a step ends, the wait before it is asked for: Prometheus must have scraped past the end (1 s scrapes; a slower one repeats its last sample). */
export const PROMETHEUS_SETTLE_MS = 2_500;

export function prometheusReader(url: string, queries: readonly PromQuery[], coresAvailable: number | null): StepReader {
  const flag = `--prometheus ${url}`;
  return {
    flag,
    settleMs: PROMETHEUS_SETTLE_MS,
    async batches(step: StepSpan): Promise<ServerMetricsBatchInput[]> {
      const read = await readPrometheusStep(url, queries, { startedAt: step.startedAt, measureFrom: step.measureFrom, endedAt: step.endedAt });
      const notes = read.notes.slice(0, 20).map((n) => n.slice(0, 300)).filter((n) => textProblem(n) === null);
      const batches: ServerMetricsBatchInput[] = [];
      for (let i = 0; i === 0 || i < read.points.length; i += MAX_SERVER_METRIC_POINTS) {
        batches.push({ level: step.level, source: 'prometheus', cores_available: coresAvailable, points: read.points.slice(i, i + MAX_SERVER_METRIC_POINTS), notes: i === 0 ? notes : [] });
      }
      return batches;
    },
    stop() {},
  };
}

/**
 * Checked before the run is created, as the other sources are: an unreachable server or a query it
 * cannot parse fails the sweep naming the flag; a query with no series yet is only a warning.
 */
export async function openPrometheusReader(url: string, promql: readonly string[], coresAvailable: number | null, warn: (m: string) => void): Promise<{ reader: StepReader } | { error: string }> {
  const queries = parsePromQueries(promql); // checked by the sweep's config (errors name --promql)
  const now = Math.floor(Date.now() / 1000);
  for (const q of queries) {
    const problem = await checkPromQuery(url, q, now);
    if (problem?.kind === 'unreachable') return { error: `--prometheus ${url}: cannot read it (${problem.error})` };
    if (problem?.kind === 'bad_query') return { error: `--promql ${q.source}: ${problem.error}` };
    if (problem) warn(`--prometheus ${url}: ${q.alias}: ${problem.error}; its figures stay empty unless it answers`);
  }
  return { reader: prometheusReader(url, queries, coresAvailable) };
}
