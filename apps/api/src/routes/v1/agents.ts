import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getRun, readRunAgents } from '@kneeboard/clickhouse';
import { ENDPOINTS, type FleetPlanBody } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { HttpError, notFound } from '../../errors.ts';
import { orUnavailable } from '../../ingest/storage-failure.ts';
import type { FleetCoordinator } from '../../services/fleet-coordinator.ts';
import { routeOf } from '../endpoint-route.ts';

/** Several agents, one run: the plan, the clock exchange, joins, step hand-outs and reports (see FleetCoordinator). */
export const agentRoutes: FastifyPluginAsyncZod<RouteDeps & { fleet: FleetCoordinator }> = async (app, { db, ingest, fleet }) => {
  /**
   * Steps that record into another run (--repeat) may name only runs of the plan's own service —
   * what the token that made the plan may write — that still take writes.
   */
  async function checkStepRuns(planRunId: string, steps: FleetPlanBody['steps']): Promise<void> {
    const own = await orUnavailable('a plan', () => getRun(db, planRunId));
    for (const [i, step] of steps.entries()) {
      if (step.run_id === undefined || step.run_id.toLowerCase() === planRunId.toLowerCase()) continue;
      const field = `steps[${i}].run_id`;
      const other = await orUnavailable('a plan', () => getRun(db, step.run_id!));
      if (!other) throw new HttpError(400, `unknown run ${step.run_id}`, field);
      if (other.service !== own?.service) throw new HttpError(400, `run ${step.run_id} belongs to another service than the plan's run`, field);
      try {
        await ingest.writableRun(step.run_id, 'a plan');
      } catch (err) {
        if (err instanceof HttpError) throw new HttpError(err.statusCode, err.message, field);
        throw err;
      }
    }
  }

  app.route({
    ...routeOf(ENDPOINTS.planFleet),
    handler: async (req, reply) => {
      await ingest.writableRun(req.params.id, 'a plan');
      await checkStepRuns(req.params.id, req.body.steps);
      await orUnavailable('a plan', () => fleet.plan(req.params.id, req.body));
      return reply.code(201).send({ ok: true as const });
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.addFleetSteps),
    handler: async (req) => {
      await checkStepRuns(req.params.id, req.body.steps);
      await orUnavailable('the steps', () => fleet.addSteps(req.params.id, req.body.steps));
      return { ok: true as const };
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.closeFleet),
    handler: async (req) => {
      await orUnavailable('the close', () => fleet.closePlan(req.params.id));
      return { ok: true as const };
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.fleetStatus),
    handler: async (req) => orUnavailable('the plan', () => fleet.status(req.params.id)),
  });

  app.route({
    ...routeOf(ENDPOINTS.agentClock),
    handler: async (req) => fleet.clock(req.body.t0),
  });

  app.route({
    ...routeOf(ENDPOINTS.previewPlan),
    handler: async (req) => orUnavailable('the plan', () => fleet.preview(req.params.id)),
  });

  app.route({
    ...routeOf(ENDPOINTS.joinAgent),
    handler: async (req, reply) => {
      await ingest.writableRun(req.params.id, 'agents joining');
      const joined = await orUnavailable('the agent', () => fleet.join(req.params.id, req.body));
      return reply.code(201).send({ agent_id: req.body.agent_id, ...joined });
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.agentNext),
    handler: async (req) => orUnavailable('the plan', () => fleet.next(req.params.id, req.params.agent, req.body.after, req.body.wait_ms)),
  });

  app.route({
    ...routeOf(ENDPOINTS.agentHeartbeat),
    handler: async (req) => {
      await orUnavailable('the heartbeat', () => fleet.heartbeat(req.params.id, req.params.agent));
      return { ok: true as const };
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.agentStepReport),
    handler: async (req) => {
      await orUnavailable('the report', () => fleet.report(req.params.id, req.params.agent, req.body));
      return { ok: true as const };
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.agentLeave),
    handler: async (req) => {
      await orUnavailable('the agent', () => fleet.leave(req.params.id, req.params.agent, req.body.recorded, req.body.recorded_by_run));
      return { ok: true as const };
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.runAgents),
    handler: async (req) => {
      // A run that does not exist (or was deleted) has no agents to list: 404, as its other reads.
      if (!(await getRun(db, req.params.id))) throw notFound('run');
      return readRunAgents(db, req.params.id);
    },
  });
};
