import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { getRun, readRunAgents } from '@kneeboard/clickhouse';
import {
  AgentId,
  AgentJoinBody,
  AgentJoinResponse,
  AgentLeaveBody,
  AgentStepReport,
  ApiError,
  Assignment,
  ClockRequest,
  ClockResponse,
  FleetPlanBody,
  FleetStatus,
  FleetStepsBody,
  HeartbeatBody,
  NextStepBody,
  RunAgents,
  RunId,
} from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { HttpError, notFound } from '../../errors.ts';
import { orUnavailable } from '../../ingest/storage-failure.ts';
import type { FleetCoordinator } from '../../services/fleet-coordinator.ts';
import { IdParams } from './runs.ts';

const AgentParams = z.object({ id: RunId, agent: AgentId });
const Ok = z.object({ ok: z.literal(true) });
const errors = { 400: ApiError, 404: ApiError, 409: ApiError };

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

  app.post('/runs/:id/fleet', {
    schema: { summary: 'Give a run a plan for several agents (the coordinator)', tags: ['agents'], params: IdParams, body: FleetPlanBody, response: { 201: Ok, ...errors } },
    handler: async (req, reply) => {
      await ingest.writableRun(req.params.id, 'a plan');
      await checkStepRuns(req.params.id, req.body.steps);
      fleet.plan(req.params.id, req.body);
      return reply.code(201).send({ ok: true as const });
    },
  });

  app.post('/runs/:id/fleet/steps', {
    schema: { summary: 'More steps for an open plan (the coordinator, between steps)', tags: ['agents'], params: IdParams, body: FleetStepsBody, response: { 200: Ok, ...errors } },
    handler: async (req) => {
      await checkStepRuns(req.params.id, req.body.steps);
      fleet.addSteps(req.params.id, req.body.steps);
      return { ok: true as const };
    },
  });

  app.post('/runs/:id/fleet/close', {
    schema: { summary: 'An open plan is complete: agents leave once its steps have run', tags: ['agents'], params: IdParams, response: { 200: Ok, ...errors } },
    handler: async (req) => {
      fleet.closePlan(req.params.id);
      return { ok: true as const };
    },
  });

  app.get('/runs/:id/fleet', {
    schema: { summary: "The plan's progress: agents, steps, done", tags: ['agents'], params: IdParams, response: { 200: FleetStatus, ...errors } },
    handler: async (req) => fleet.status(req.params.id),
  });

  app.post('/runs/:id/agents/clock', {
    schema: { summary: "One NTP-style exchange with the API's clock", tags: ['agents'], params: IdParams, body: ClockRequest, response: { 200: ClockResponse, 400: ApiError } },
    handler: async (req) => fleet.clock(req.body.t0),
  });

  app.post('/runs/:id/agents', {
    schema: { summary: 'An agent joins the run', tags: ['agents'], params: IdParams, body: AgentJoinBody, response: { 201: AgentJoinResponse, ...errors } },
    handler: async (req, reply) => {
      await ingest.writableRun(req.params.id, 'agents joining');
      const joined = await orUnavailable('the agent', () => fleet.join(req.params.id, req.body));
      return reply.code(201).send({ agent_id: req.body.agent_id, ...joined });
    },
  });

  app.post('/runs/:id/agents/:agent/next', {
    schema: { summary: "Long poll for the agent's next step (also a heartbeat)", tags: ['agents'], params: AgentParams, body: NextStepBody, response: { 200: Assignment, ...errors } },
    handler: async (req) => fleet.next(req.params.id, req.params.agent, req.body.after, req.body.wait_ms),
  });

  app.post('/runs/:id/agents/:agent/heartbeat', {
    schema: { summary: 'The agent is alive (sent every second during a step)', tags: ['agents'], params: AgentParams, body: HeartbeatBody, response: { 200: Ok, ...errors } },
    handler: async (req) => {
      fleet.heartbeat(req.params.id, req.params.agent);
      return { ok: true as const };
    },
  });

  app.post('/runs/:id/agents/:agent/steps', {
    schema: { summary: "The agent's report of its part in a step", tags: ['agents'], params: AgentParams, body: AgentStepReport, response: { 200: Ok, ...errors } },
    handler: async (req) => {
      fleet.report(req.params.id, req.params.agent, req.body);
      return { ok: true as const };
    },
  });

  app.post('/runs/:id/agents/:agent/leave', {
    schema: { summary: 'The agent is done: what it recorded and delivered', tags: ['agents'], params: AgentParams, body: AgentLeaveBody, response: { 200: Ok, ...errors } },
    handler: async (req) => {
      await orUnavailable('the agent', () => fleet.leave(req.params.id, req.params.agent, req.body.recorded, req.body.recorded_by_run));
      return { ok: true as const };
    },
  });

  app.get('/runs/:id/agents', {
    schema: { summary: 'The agents that took part in a run, with their clock offsets and each step', tags: ['agents'], params: IdParams, response: { 200: RunAgents, 400: ApiError, 404: ApiError } },
    handler: async (req) => {
      // A run that does not exist (or was deleted) has no agents to list: 404, as its other reads.
      if (!(await getRun(db, req.params.id))) throw notFound('run');
      return readRunAgents(db, req.params.id);
    },
  });
};
