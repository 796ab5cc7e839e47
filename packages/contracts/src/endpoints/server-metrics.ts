import { ApiError } from '../errors.ts';
import { MAX_SERVER_METRIC_POINTS, PrometheusReadBody, PrometheusReadResponse, RunCost, ServerMetricsBatch, ServerMetricsResponse } from '../server-cost.ts';
import { API_PREFIX, endpoint } from './endpoint.ts';
import { RunIdParams } from './runs.ts';

const POST_DESCRIPTION = `One step's server metrics (CPU, memory, any selector's values) per second, as the agent read them from the
target's /metrics, /proc or a cgroup. The level must be one of the run's steps; at most ${MAX_SERVER_METRIC_POINTS} points
(413 above). Stored by (run, level, metric, second): posting a second again replaces it, so a retry, or another agent
reading the same source, is stored once.`;

/** What the server spent at each level: written by the agent with each step, read beside the curve. */
export const serverMetricEndpoints = {
  postServerMetrics: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/server-metrics`,
    scope: 'ingest',
    service: 'run',
    summary: "Record what the server spent during a step (CPU, memory), per second",
    description: POST_DESCRIPTION,
    tags: ['ingest'],
    params: RunIdParams,
    body: ServerMetricsBatch,
    responses: { 200: ServerMetricsResponse, 400: ApiError, 409: ApiError, 413: ApiError, 503: ApiError },
  }),
  readPrometheusMetrics: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/server-metrics/prometheus`,
    scope: 'write',
    service: 'run',
    summary: "Read a run's server metrics from a Prometheus server (query_range over each finished step's window)",
    description: `For an imported or finished run: the API evaluates each name=PromQL query (cpu and mem by default) at one value a
second over every finished step's window and stores the values as an agent's posts are stored (a second read replaces the
first). Only servers the API's allow-list names are read (KNEEBOARD_PROMETHEUS_ALLOW; loopback and the API's own host by
default): 400 naming url otherwise. A query Prometheus cannot parse is a 400 naming it; an unreachable server, an error
answer or an empty result is stored as the step's gap, named.`,
    tags: ['ingest'],
    params: RunIdParams,
    body: PrometheusReadBody,
    responses: { 200: PrometheusReadResponse, 400: ApiError, 404: ApiError, 503: ApiError },
  }),
  getRunCost: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/cost`,
    scope: 'read',
    share: 'run',
    summary: 'What each level cost the server: cores used, peak memory, QPS per core, CPU-seconds per 1,000 requests, and the CPU verdict',
    tags: ['runs'],
    params: RunIdParams,
    responses: { 200: RunCost, 404: ApiError },
  }),
  getRunCostMarkdown: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/cost.md`,
    scope: 'read',
    share: 'run',
    summary: 'What each level cost the server, as a Markdown table with the CPU verdict (for a review or a pull request)',
    tags: ['runs'],
    params: RunIdParams,
    produces: 'text/markdown',
  }),
} as const;
