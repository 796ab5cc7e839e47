import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { finishRun, getRun, insertRun, listRuns, queryRunSummaries, updateRun } from '@kneeboard/clickhouse';
import {
  ApiError,
  CreateRunBody,
  CreateRunResponse,
  EVENT_TIME_SLACK_MS,
  FinishRunBody,
  ListRunsQuery,
  ListRunsResponse,
  PercentilesQuery,
  percentilesWanted,
  Run,
  RunDetail,
  RunId,
  UpdateRunBody,
} from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { HttpError, notFound } from '../../errors.ts';
import { refuseLateWrite } from '../../ingest/run-lifecycle.ts';
import { orUnavailable } from '../../ingest/storage-failure.ts';
import { requireRunDetail } from '../../services/run-detail.ts';

export const IdParams = z.object({ id: RunId });

/**
 * A run finished before this call: the same status within the grace period is a replay; so is the
 * same status with the same span (an import's finish, whose finished_at lies in the past); anything
 * else a 409.
 */
function refuseRefinish(run: Run, body: FinishRunBody, graceMs: number, now = Date.now()): void {
  const { status } = body;
  if (run.status !== status) throw new HttpError(409, `run is already ${run.status}; it cannot become ${status}`, 'status');
  // Stored in whole ms, rounded outwards (see finishRun).
  if (body.started_at !== undefined && body.finished_at !== undefined && Math.floor(body.started_at) === run.created_at && Math.ceil(body.finished_at) === run.finished_at) return;
  const late = refuseLateWrite({ status: run.status, finished_at: run.finished_at, created_at: run.created_at, steps_from: null, steps_to: null, open_step: false, levels: [] }, now, graceMs, 'repeated finishes');
  if (late) throw late;
}

export const runRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, hub, ingest }) => {
  app.post('/runs', {
    schema: { summary: 'Create a run', tags: ['runs'], body: CreateRunBody, response: { 201: CreateRunResponse, 400: ApiError } },
    handler: async (req, reply) => {
      const run = await insertRun(db, req.body);
      return reply.code(201).send({ id: run.id });
    },
  });

  app.get('/runs', {
    schema: { summary: 'List runs, newest first', tags: ['runs'], querystring: ListRunsQuery, response: { 200: ListRunsResponse } },
    handler: async (req) => {
      const runs = await listRuns(db, req.query);
      const summaries = await queryRunSummaries(db, runs.map((r) => r.id));
      return {
        runs: runs.map((run) => ({ ...run, ...(summaries.get(run.id) ?? { levels: 0, requests: 0, peak_qps: null }) })),
      };
    },
  });

  app.get('/runs/:id', {
    schema: {
      summary: 'A run with its steps and its curve',
      description:
        "Percentiles from every raw row with `exact=1`, from the rollup (within 0.5%) with `exact=0`; without it, raw rows for runs up to 200,000 requests and the rollup above. The body's `percentiles` says which.",
      tags: ['runs'],
      params: IdParams,
      querystring: PercentilesQuery,
      response: { 200: RunDetail, 400: ApiError, 404: ApiError },
    },
    handler: async (req) => requireRunDetail(db, req.params.id, 'id', percentilesWanted(req.query)),
  });

  app.delete('/runs/:id', {
    schema: {
      summary: 'Delete a run: its raw events, batch ledger, steps and the run itself (a write token where tokens are on)',
      tags: ['runs'],
      params: IdParams,
      response: { 204: z.null(), 404: ApiError },
    },
    handler: async (req, reply) => {
      const run = await getRun(db, req.params.id);
      if (!run) throw notFound('run');
      // Through the write path: the deletion wins over batches racing it, here and on other replicas.
      await orUnavailable('the deletion', () => ingest.deleteRun(run.id));
      hub.notify(run.id);
      return reply.code(204).send(null);
    },
  });

  app.patch('/runs/:id', {
    schema: {
      summary: "Set a run's labels and/or its note for the review",
      tags: ['runs'],
      params: IdParams,
      body: UpdateRunBody,
      response: { 200: Run, 400: ApiError, 404: ApiError },
    },
    handler: async (req) => {
      const run = await updateRun(db, req.params.id, req.body);
      if (!run) throw notFound('run');
      hub.notify(run.id);
      return run;
    },
  });

  app.post('/runs/:id/finish', {
    schema: {
      summary: 'Mark a run finished (or aborted)',
      description:
        "Finishing again with the same status is accepted within the late-data grace period (a spooling agent re-sending its finish) and answers the run unchanged; a different status, or after the grace period, is a 409. `started_at`/`finished_at` give the test's own span (an import: the file's first and last request), which becomes the run's `created_at`/`finished_at`; a finish repeating the same span is always a replay.",
      tags: ['runs'],
      params: IdParams,
      body: FinishRunBody,
      response: { 200: Run, 400: ApiError, 404: ApiError, 409: ApiError, 503: ApiError },
    },
    handler: async (req) => {
      const now = Date.now();
      // Clocks of load hosts drift from the API's by as much as events may: the same slack.
      for (const field of ['started_at', 'finished_at'] as const) {
        const at = req.body[field];
        if (at !== undefined && at > now + EVENT_TIME_SLACK_MS) throw new HttpError(400, `${field} must not be in the future`, field);
      }
      const span = { started_at: req.body.started_at, finished_at: req.body.finished_at };
      const finished = await orUnavailable('the finish', () => finishRun(db, req.params.id, req.body.status, now, span));
      if (!finished) throw notFound('run');
      const { run } = finished;
      if (finished.before) refuseRefinish(run, req.body, ingest.lateDataGraceMs, now);
      ingest.runs.invalidate(run.id);
      hub.notify(run.id);
      return run;
    },
  });
};
