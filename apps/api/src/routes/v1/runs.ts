import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getRun, insertRun, listRuns, queryRunSummaries } from '@kneeboard/clickhouse';
import { ENDPOINTS, EVENT_TIME_SLACK_MS, percentilesWanted, type FinishRunBody, type Run } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { HttpError, notFound } from '../../errors.ts';
import { refuseLateWrite } from '../../ingest/run-lifecycle.ts';
import { orUnavailable } from '../../ingest/storage-failure.ts';
import { loadNameCurves, nameCurvesBody } from '../../services/name-curves.ts';
import { requireRunDetail } from '../../services/run-detail.ts';
import { withSearch } from '../../services/run-search.ts';
import { routeOf } from '../endpoint-route.ts';

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

export const runRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, ingest, webhooks }) => {
  app.route({
    ...routeOf(ENDPOINTS.createRun),
    handler: async (req, reply) => {
      const run = await insertRun(db, req.body);
      return reply.code(201).send({ id: run.id });
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.listRuns),
    handler: async (req) => {
      const runs = await listRuns(db, req.query);
      const summaries = await queryRunSummaries(db, runs.map((r) => r.id));
      return {
        runs: runs.map((run) => ({ ...run, ...(summaries.get(run.id) ?? { levels: 0, requests: 0, peak_qps: null }) })),
      };
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.getRun),
    handler: async (req) => withSearch(db, await requireRunDetail(db, req.params.id, 'id', percentilesWanted(req.query), { name: req.query.name, endpoints: true })),
  });

  app.route({
    ...routeOf(ENDPOINTS.runNameCurves),
    handler: async (req) => {
      const read = await loadNameCurves(db, req.params.id, percentilesWanted(req.query), ingest.maxNamesPerRun);
      if (!read) throw notFound('run');
      return nameCurvesBody(read);
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.deleteRun),
    handler: async (req, reply) => {
      const run = await getRun(db, req.params.id);
      if (!run) throw notFound('run');
      // Through the write path: the deletion wins over batches racing it, here and on other replicas.
      await orUnavailable('the deletion', () => ingest.deleteRun(run.id));
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.updateRun),
    handler: async (req) => {
      const run = await ingest.updateRun(req.params.id, req.body);
      if (!run) throw notFound('run');
      return run;
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.finishRun),
    handler: async (req) => {
      const now = Date.now();
      // Clocks of load hosts drift from the API's by as much as events may: the same slack.
      for (const field of ['started_at', 'finished_at'] as const) {
        const at = req.body[field];
        if (at !== undefined && at > now + EVENT_TIME_SLACK_MS) throw new HttpError(400, `${field} must not be in the future`, field);
      }
      const span = { started_at: req.body.started_at, finished_at: req.body.finished_at };
      const finished = await orUnavailable('the finish', () => ingest.finishRun(req.params.id, req.body.status, now, span));
      if (!finished) throw notFound('run');
      const { run } = finished;
      if (finished.before) refuseRefinish(run, req.body, ingest.lateDataGraceMs, now);
      // The first finish is judged for webhooks; a repeated one (same span) changes nothing to judge.
      if (!finished.before) webhooks.notifier.runFinished(run);
      return run;
    },
  });
};
