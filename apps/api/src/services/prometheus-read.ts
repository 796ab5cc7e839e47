import { getRun, listSteps, type Db } from '@kneeboard/clickhouse';
import { MAX_SERVER_METRIC_POINTS, textProblem, type PrometheusReadBody, type PrometheusReadResponse } from '@kneeboard/contracts';
import { checkPromQuery, parsePromQueries, parsePromQuery, readPrometheusStep, SelectorError, type PromQuery } from '@kneeboard/server-metrics';
import { HttpError, notFound } from '../errors.ts';
import type { IngestService } from '../ingest/ingest-service.ts';
import { orUnavailable } from '../ingest/storage-failure.ts';
import { prometheusAllowed } from './prometheus-allow.ts';

/**
 * A finished or imported run's server metrics, read by the API from a Prometheus server (issue 28):
 * every finished step's window through query_range, stored through the write path like an agent's
 * post. The caller's mistakes are 400s naming the field (a host the allow-list does not name, a
 * query Prometheus cannot parse); the source's failures are gaps stored with each step.
 */

/** Seconds of step windows one read may cover: 16 queries × 3 hours is ~170,000 values. */
const MAX_WINDOW_SECONDS = 3 * 3600;

export async function readRunFromPrometheus(db: Db, ingest: IngestService, runId: string, body: PrometheusReadBody, allow: readonly string[]): Promise<PrometheusReadResponse> {
  if (!prometheusAllowed(body.url, allow)) {
    throw new HttpError(400, `the API does not read Prometheus at ${new URL(body.url).host}: KNEEBOARD_PROMETHEUS_ALLOW names the hosts it may (now: ${allow.join(', ')})`, 'url');
  }
  let queries: PromQuery[];
  // Each query alone first, so the 400 names the one that is wrong; then together (a name used twice).
  for (const [i, text] of body.queries.entries()) {
    try {
      parsePromQuery(text);
    } catch (err) {
      if (err instanceof SelectorError) throw new HttpError(400, err.message, `queries[${i}]`);
      throw err;
    }
  }
  try {
    queries = parsePromQueries(body.queries);
  } catch (err) {
    if (err instanceof SelectorError) throw new HttpError(400, err.message, 'queries');
    throw err;
  }
  if (ingest.isDeleted(runId)) throw notFound('run');
  const [run, steps] = await orUnavailable('the run', () => Promise.all([getRun(db, runId), listSteps(db, runId)]));
  if (!run) throw notFound('run');
  const wanted = steps.filter((s) => s.ended_at !== null && (body.levels === undefined || body.levels.includes(s.level)));
  const missing = body.levels?.find((l) => !steps.some((s) => s.level === l && s.ended_at !== null));
  if (missing !== undefined) throw new HttpError(400, `the run has no finished step at level ${missing}`, `levels[${body.levels!.indexOf(missing)}]`);
  const seconds = wanted.reduce((sum, s) => sum + (s.ended_at! - s.started_at) / 1000, 0);
  if (seconds > MAX_WINDOW_SECONDS) throw new HttpError(400, `${Math.round(seconds)} s of step windows; at most ${MAX_WINDOW_SECONDS} s in one read (name fewer levels)`, 'levels');

  // Each query once, before anything is stored: one Prometheus cannot parse is the caller's to fix.
  // Unreachable: every step gets the same gap, and no further request is made.
  let failed: string | undefined;
  const at = Math.floor((wanted[0]?.ended_at ?? Date.now()) / 1000);
  for (const [i, q] of queries.entries()) {
    const problem = await checkPromQuery(body.url, q, at);
    if (problem?.kind === 'bad_query') {
      const given = body.queries.findIndex((t) => t.startsWith(`${q.alias}=`));
      throw new HttpError(400, `${q.alias}: ${problem.error}`, given >= 0 ? `queries[${given}]` : `queries (default ${q.alias}, query ${i + 1})`);
    }
    if (problem?.kind === 'unreachable') {
      failed = problem.error;
      break;
    }
  }

  const levels: PrometheusReadResponse['levels'] = [];
  for (const step of wanted) {
    const read = await readPrometheusStep(body.url, queries, { startedAt: step.started_at, measureFrom: step.measure_from, endedAt: step.ended_at! }, failed === undefined ? {} : { failed });
    const notes = read.notes.slice(0, 20).map((n) => n.slice(0, 300)).filter((n) => textProblem(n) === null);
    for (let i = 0; i === 0 || i < read.points.length; i += MAX_SERVER_METRIC_POINTS) {
      const batch = { level: step.level, source: 'prometheus' as const, cores_available: body.cores_available, points: read.points.slice(i, i + MAX_SERVER_METRIC_POINTS), notes: i === 0 ? notes : [] };
      await orUnavailable('the server metrics', () => ingest.recordServerMetrics(runId, batch));
    }
    levels.push({ level: step.level, points: read.points.length, notes });
  }
  return { ok: true, levels };
}
