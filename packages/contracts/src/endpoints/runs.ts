import { z } from 'zod';
import { RunAnalysis } from '../analysis.ts';
import { Capacity, CapacityProjection, SloParam } from '../capacity.ts';
import { RunId } from '../common.ts';
import { PercentilesQuery } from '../curve.ts';
import { ApiError } from '../errors.ts';
import { LevelDetail, LevelParams } from '../level-detail.ts';
import { CreateRunBody, CreateRunResponse, FinishRunBody, ListRunsQuery, ListRunsResponse, Run, UpdateRunBody } from '../run.ts';
import { RunDetail } from '../run-detail.ts';
import { RunDetailQuery, RunNameCurves } from '../request-names.ts';
import { SvgViewQuery } from '../svg-view.ts';
import { MAX_TIMELINE_POINTS, RunTimeline, TimelineParams } from '../timeline.ts';
import { API_PREFIX, endpoint } from './endpoint.ts';

export const RunIdParams = z.object({ id: RunId });

/** With `slo=`, the analysis also answers capacity under those SLOs (the analysis of the curve itself does not depend on an SLO). */
const Qps = z.coerce.number().positive('must be a positive number of requests per second').max(1e9, 'must be at most 1e9');
export const AnalysisQuery = PercentilesQuery.extend({
  slo: SloParam.optional(),
  target_qps: Qps.optional().meta({ description: 'With `slo=`: how many instances this many req/s needs (`capacity.projection`)' }),
  current_qps: Qps.optional().meta({ description: "With `slo=`: one instance's traffic today, for the headroom (`capacity.projection`)" }),
});
export const AnalysisWithCapacity = RunAnalysis.extend({ capacity: Capacity.extend({ projection: CapacityProjection.optional() }).optional() });

/** Pixels per SVG unit: 2 by default, sharp on high-density screens; 1–3. */
export const PngScale = z.object({
  scale: z.coerce.number().int('must be a whole number').min(1).max(3).optional().describe('pixels per SVG unit, 1–3 (default 2)'),
});

/** A run: created, listed, read, labelled, finished, deleted; and its views (analysis, a level, the timeline, files, the live stream). */
export const runEndpoints = {
  createRun: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs`,
    scope: 'ingest',
    service: 'body',
    summary: 'Create a run',
    tags: ['runs'],
    body: CreateRunBody,
    responses: { 201: CreateRunResponse, 400: ApiError },
  }),
  listRuns: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs`,
    scope: 'read',
    summary: 'List runs, newest first',
    tags: ['runs'],
    query: ListRunsQuery,
    responses: { 200: ListRunsResponse },
  }),
  /** An ingest token reads its run's status here (the run record alone: see the API's access/run-status.ts). */
  getRun: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id`,
    scope: 'ingest',
    share: 'run',
    service: 'run',
    summary: 'A run with its steps and its curve',
    description:
      "Percentiles from every raw row with `exact=1`, from the rollup (within 0.5%) with `exact=0`; without it, raw rows for runs up to 200,000 requests and the rollup above. The body's `percentiles` says which. A run whose requests carry names lists them (`names`) and says which endpoint saturates first (`endpoints`); `name=` answers that name's curve and analysis.",
    tags: ['runs'],
    params: RunIdParams,
    query: RunDetailQuery,
    responses: { 200: RunDetail, 400: ApiError, 404: ApiError },
  }),
  deleteRun: endpoint({
    method: 'DELETE',
    path: `${API_PREFIX}/runs/:id`,
    scope: 'write',
    service: 'run',
    summary: 'Delete a run: its raw events, batch ledger, steps and the run itself (a write token where tokens are on)',
    tags: ['runs'],
    params: RunIdParams,
    responses: { 204: z.null(), 404: ApiError },
  }),
  updateRun: endpoint({
    method: 'PATCH',
    path: `${API_PREFIX}/runs/:id`,
    scope: 'write',
    service: 'run',
    summary: "Set a run's labels and/or its note for the review",
    tags: ['runs'],
    params: RunIdParams,
    body: UpdateRunBody,
    responses: { 200: Run, 400: ApiError, 404: ApiError },
  }),
  finishRun: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/finish`,
    scope: 'ingest',
    service: 'run',
    summary: 'Mark a run finished (or aborted)',
    description:
      "Finishing again with the same status is accepted within the late-data grace period (a spooling agent re-sending its finish) and answers the run unchanged; a different status, or after the grace period, is a 409. `started_at`/`finished_at` give the test's own span (an import: the file's first and last request), which becomes the run's `created_at`/`finished_at`; a finish repeating the same span is always a replay.",
    tags: ['runs'],
    params: RunIdParams,
    body: FinishRunBody,
    responses: { 200: Run, 400: ApiError, 404: ApiError, 409: ApiError, 503: ApiError },
  }),
  runLive: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/live`,
    scope: 'read',
    share: 'run',
    service: 'run',
    summary: 'Server-Sent Events: a `snapshot` (RunDetail) on connect and on every change, `end` when the run ends; with `slo=`, each snapshot carries `capacity`',
    description:
      "With `name=`, each snapshot is that request name's detail as `GET /runs/{id}?name=` answers it (its curve and analysis, the run's `names` and `endpoints`), so one endpoint's curve grows while the run runs; `capacity` stays the whole run's. A name the run does not carry is a 404 naming `name`, as for `GET /runs/{id}`.",
    tags: ['runs'],
    params: RunIdParams,
    // The name's rules are GET /runs/{id}'s own (one schema: RunDetailQuery).
    query: z.object({ slo: SloParam.optional(), name: RunDetailQuery.shape.name }),
    produces: 'text/event-stream',
  }),
  runNameCurves: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/names`,
    scope: 'read',
    share: 'run',
    service: 'run',
    summary: "Every request name's curve in one answer (level, requests, errors, QPS, p50, p99) with its knee, busiest first",
    description:
      "Each name's points are those `GET /runs/{id}?name=` answers for it (percentiles chosen the same way: `exact=`, else raw rows up to 200,000 requests and the per-name rollup above), kept per version of the run. At most KNEEBOARD_MAX_NAMES_PER_RUN names (`omitted` counts the rest). A run without names answers an empty list.",
    tags: ['runs'],
    params: RunIdParams,
    query: PercentilesQuery,
    responses: { 200: RunNameCurves, 400: ApiError, 404: ApiError },
  }),
  runNamesCsv: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/names.csv`,
    scope: 'read',
    share: 'run',
    service: 'run',
    summary: "Every request name's curve as CSV for a spreadsheet: one row per name and level (a pivot table's long form), busiest name first",
    tags: ['runs'],
    params: RunIdParams,
    query: PercentilesQuery,
    produces: 'text/csv',
  }),
  runAnalysis: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/analysis`,
    scope: 'read',
    share: 'run',
    service: 'run',
    summary: "The curve's knee, USL fit, scaling efficiency, verdict and warnings; with `slo=`, the capacity under those SLOs",
    tags: ['runs'],
    params: RunIdParams,
    query: AnalysisQuery,
    responses: { 200: AnalysisWithCapacity, 400: ApiError, 404: ApiError },
  }),
  runLevel: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/levels/:level`,
    scope: 'read',
    share: 'run',
    service: 'run',
    summary: 'Inside one level: min/mean/max, the percentile spectrum, a latency histogram, the step over time (warm-up included) and the status codes',
    description:
      "Statistics count the rows of the level's measurement window, as its curve point does; latency is over successful requests (status 1–399). Percentiles are exact (quantilesExactInclusive). The timeline runs from the step's start, warm-up included, in slices of 100 ms–1 s (wider for steps over a minute) flagged `measured` from measure_from. Status 0 = a transport error.",
    tags: ['runs'],
    params: LevelParams,
    responses: { 200: LevelDetail, 400: ApiError, 404: ApiError },
  }),
  runTimeline: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/timeline`,
    scope: 'read',
    share: 'run',
    service: 'run',
    summary: 'The whole run against wall-clock time: requests/s, errors and p50/p99 per second, and the steps to shade',
    description: `From the per-second rollup: every level's requests summed per wall-clock second (a request counts in the second it completed), errors = requests − successful (status 1–399), p50/p99 of the successful ones from the merged DDSketch states (within 0.5%; null in a second with none). Runs longer than ${MAX_TIMELINE_POINTS} s are read in buckets of several whole seconds (\`bucket_s\`), so there are never more than ${MAX_TIMELINE_POINTS} points. \`steps\` are the sweep's steps on the same clock: warm-up from started_at, measured from measure_from.`,
    tags: ['runs'],
    params: TimelineParams,
    responses: { 200: RunTimeline, 400: ApiError, 404: ApiError },
  }),
  runCurveSvg: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/curve.svg`,
    scope: 'read',
    share: 'run',
    service: 'run',
    summary: "The run's curve as an embeddable SVG (throughput and latency against level, knee marked); metrics, levels and y as in the web app's URLs; with `slo=`, the SLO thresholds and the capacity under them drawn",
    tags: ['runs'],
    params: RunIdParams,
    query: SvgViewQuery.extend(PercentilesQuery.shape).extend({ slo: SloParam.optional() }),
    produces: 'image/svg+xml',
  }),
  runCurveCsv: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/curve.csv`,
    scope: 'read',
    share: 'run',
    service: 'run',
    summary: "The run's curve as CSV, one row per level; with `slo=`, each level's capacity judgement under those SLOs",
    tags: ['runs'],
    params: RunIdParams,
    query: PercentilesQuery.extend({ slo: SloParam.optional() }),
    produces: 'text/csv',
  }),
  runPng: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id.png`,
    scope: 'read',
    share: 'run',
    service: 'run',
    summary: "The run's curve as a PNG (the curve.svg drawing, rasterised); metrics, levels, y and slo as in the web app's URLs",
    tags: ['runs'],
    params: RunIdParams,
    query: SvgViewQuery.extend(PercentilesQuery.shape).extend(PngScale.shape).extend({ slo: SloParam.optional() }),
    produces: 'image/png',
  }),
} as const;
