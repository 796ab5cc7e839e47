import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { AgentId } from '../events.ts';
import {
  AgentJoinBody,
  AgentJoinResponse,
  AgentLeaveBody,
  AgentStepReport,
  Assignment,
  ClockRequest,
  ClockResponse,
  FleetPlanBody,
  FleetStatus,
  FleetStepsBody,
  HeartbeatBody,
  NextStepBody,
  RunAgents,
} from '../fleet.ts';
import { RunId } from '../common.ts';
import { API_PREFIX, endpoint } from './endpoint.ts';
import { RunIdParams } from './runs.ts';

export const AgentParams = z.object({ id: RunId, agent: AgentId });
export const OkBody = z.object({ ok: z.literal(true) });
const errors = { 400: ApiError, 404: ApiError, 409: ApiError };

/**
 * Several agents, one run (kneeboard sweep --agents, kneeboard agent --join): the coordinator's plan
 * and the agents' conversation — an ingest token's business, like the rest of an agent's calls.
 */
export const fleetEndpoints = {
  planFleet: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/fleet`,
    scope: 'ingest',
    service: 'run',
    summary: 'Give a run a plan for several agents (the coordinator)',
    tags: ['agents'],
    params: RunIdParams,
    body: FleetPlanBody,
    responses: { 201: OkBody, ...errors },
  }),
  addFleetSteps: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/fleet/steps`,
    scope: 'ingest',
    service: 'run',
    summary: 'More steps for an open plan (the coordinator, between steps)',
    tags: ['agents'],
    params: RunIdParams,
    body: FleetStepsBody,
    responses: { 200: OkBody, ...errors },
  }),
  closeFleet: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/fleet/close`,
    scope: 'ingest',
    service: 'run',
    summary: 'An open plan is complete: agents leave once its steps have run',
    tags: ['agents'],
    params: RunIdParams,
    responses: { 200: OkBody, ...errors },
  }),
  /** The second read an ingest token makes: the coordinator polls its plan. */
  fleetStatus: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/fleet`,
    scope: 'ingest',
    service: 'run',
    summary: "The plan's progress: agents, steps, done",
    tags: ['agents'],
    params: RunIdParams,
    responses: { 200: FleetStatus, ...errors },
  }),
  agentClock: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/agents/clock`,
    scope: 'ingest',
    service: 'run',
    summary: "One NTP-style exchange with the API's clock",
    tags: ['agents'],
    params: RunIdParams,
    body: ClockRequest,
    responses: { 200: ClockResponse, 400: ApiError },
  }),
  /**
   * The plan an agent would join, without joining: it checks it can send the plan's request (the
   * target reachable, its certificate trusted) before the plan counts on it. A POST with the
   * ingest scope, as the join: the plan carries the request's headers, which a public read must not show.
   */
  previewPlan: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/agents/plan`,
    scope: 'ingest',
    service: 'run',
    summary: 'The plan an agent would get by joining, read before it joins',
    tags: ['agents'],
    params: RunIdParams,
    responses: { 200: AgentJoinResponse.pick({ plan: true }), ...errors },
  }),
  joinAgent: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/agents`,
    scope: 'ingest',
    service: 'run',
    summary: 'An agent joins the run',
    tags: ['agents'],
    params: RunIdParams,
    body: AgentJoinBody,
    responses: { 201: AgentJoinResponse, ...errors },
  }),
  agentNext: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/agents/:agent/next`,
    scope: 'ingest',
    service: 'run',
    summary: "Long poll for the agent's next step (also a heartbeat)",
    tags: ['agents'],
    params: AgentParams,
    body: NextStepBody,
    responses: { 200: Assignment, ...errors },
  }),
  agentHeartbeat: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/agents/:agent/heartbeat`,
    scope: 'ingest',
    service: 'run',
    summary: 'The agent is alive (sent every second during a step)',
    tags: ['agents'],
    params: AgentParams,
    body: HeartbeatBody,
    responses: { 200: OkBody, ...errors },
  }),
  agentStepReport: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/agents/:agent/steps`,
    scope: 'ingest',
    service: 'run',
    summary: "The agent's report of its part in a step",
    tags: ['agents'],
    params: AgentParams,
    body: AgentStepReport,
    responses: { 200: OkBody, ...errors },
  }),
  agentLeave: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/runs/:id/agents/:agent/leave`,
    scope: 'ingest',
    service: 'run',
    summary: 'The agent is done: what it recorded and delivered',
    tags: ['agents'],
    params: AgentParams,
    body: AgentLeaveBody,
    responses: { 200: OkBody, ...errors },
  }),
  /** A read of people's, not an ingest token's: the run page's agents panel. */
  runAgents: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/agents`,
    scope: 'read',
    share: 'run',
    service: 'run',
    summary: 'The agents that took part in a run, with their clock offsets and each step',
    tags: ['agents'],
    params: RunIdParams,
    responses: { 200: RunAgents, 400: ApiError, 404: ApiError },
  }),
} as const;
