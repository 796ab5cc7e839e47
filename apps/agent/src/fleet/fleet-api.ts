import { withRetry, type RetryPolicy } from '@kneeboard/agent-sdk';
import { ApiHttpError, authorization, endpointUrl, fetchApi } from '@kneeboard/api-client';
import { z } from 'zod';
import {
  ENDPOINTS,
  AgentJoinResponse,
  Assignment,
  ClockResponse,
  FleetStatus,
  RunAgents,
  RunDetail,
  type AgentJoinBody,
  type AgentStepReport,
  type EndpointSpec,
  type FleetPlanInput,
} from '@kneeboard/contracts';

/**
 * How long a fleet call is tried again through an unreachable or busy API (network errors, 502,
 * 503, 504: the SDK's rule): the plan lives in storage, so an API restart — or a replica going
 * away behind a load balancer — is waited out, and the plan goes on. Any other answer is final.
 */
export const FLEET_RETRY: RetryPolicy = { initialDelayMs: 100, maxDelayMs: 2_000, giveUpAfterMs: 120_000 };

/**
 * The fleet routes of the API (/runs/{id}/fleet, /runs/{id}/agents/…), answers parsed by the
 * contracts. Every call is retried as FLEET_RETRY says; each is safe to send again (a report, a
 * leave or a close sent twice counts once). Not a join: one whose answer was lost would be
 * refused as "already joined", so a join fails at once and the agent says so.
 */
export class FleetApi {
  constructor(
    private readonly baseUrl: string,
    private readonly runId: string,
    private readonly token: string | undefined,
    private readonly retry: RetryPolicy = FLEET_RETRY,
  ) {}

  plan(body: FleetPlanInput): Promise<unknown> {
    return this.call(ENDPOINTS.planFleet, undefined, body, z.unknown());
  }

  /** More steps for an open plan. */
  addSteps(steps: FleetPlanInput['steps']): Promise<unknown> {
    return this.call(ENDPOINTS.addFleetSteps, undefined, { steps }, z.unknown());
  }

  /** An open plan is complete. */
  close(): Promise<unknown> {
    return this.call(ENDPOINTS.closeFleet, undefined, undefined, z.unknown());
  }

  status(): Promise<FleetStatus> {
    return this.call(ENDPOINTS.fleetStatus, undefined, undefined, FleetStatus);
  }

  detail(): Promise<RunDetail> {
    return this.call(ENDPOINTS.getRun, undefined, undefined, RunDetail);
  }

  agents(): Promise<RunAgents> {
    return this.call(ENDPOINTS.runAgents, undefined, undefined, RunAgents);
  }

  clock(t0: number): Promise<ClockResponse> {
    return this.call(ENDPOINTS.agentClock, undefined, { t0 }, ClockResponse);
  }

  /** The plan a join would hand out, read without joining. */
  preview(): Promise<Pick<AgentJoinResponse, 'plan'>> {
    return this.call(ENDPOINTS.previewPlan, undefined, undefined, AgentJoinResponse.pick({ plan: true }));
  }

  join(body: AgentJoinBody): Promise<AgentJoinResponse> {
    return this.once(ENDPOINTS.joinAgent, undefined, body, AgentJoinResponse);
  }

  next(agentId: string, after: number, waitMs: number): Promise<Assignment> {
    return this.call(ENDPOINTS.agentNext, agentId, { after, wait_ms: waitMs }, Assignment, waitMs + 15_000);
  }

  /**
   * Retried until the next beat is due, no longer. Behind a round-robin balancer with one replica
   * down, beats sent at a fixed pace can meet the dead replica every time (another agent's beats
   * taking the live one's turns): the agent would be judged silent while the API was up.
   */
  heartbeat(agentId: string, index: number, withinMs: number): Promise<unknown> {
    const policy: RetryPolicy = { initialDelayMs: Math.min(50, withinMs / 4), maxDelayMs: withinMs / 4, giveUpAfterMs: withinMs };
    // Each attempt keeps the usual timeout: a beat a busy API answers late still counts there.
    return withRetry(() => this.once(ENDPOINTS.agentHeartbeat, agentId, { index }, z.unknown()), policy);
  }

  report(agentId: string, report: AgentStepReport): Promise<unknown> {
    return this.call(ENDPOINTS.agentStepReport, agentId, report, z.unknown());
  }

  leave(agentId: string, recorded: number, uploaded: number, recordedByRun?: Record<string, number>): Promise<unknown> {
    return this.call(ENDPOINTS.agentLeave, agentId, { recorded, uploaded, ...(recordedByRun ? { recorded_by_run: recordedByRun } : {}) }, z.unknown());
  }

  private call<T>(ep: EndpointSpec, agent: string | undefined, body: unknown, schema: z.ZodType<T>, timeoutMs = 15_000): Promise<T> {
    return withRetry(() => this.once(ep, agent, body, schema, timeoutMs), this.retry);
  }

  /** Through the shared core (@kneeboard/api-client): a refusal is its ApiHttpError (status, the API's message). */
  private once<T>(ep: EndpointSpec, agent: string | undefined, body: unknown, schema: z.ZodType<T>, timeoutMs = 15_000): Promise<T> {
    return fetchApi(endpointUrl(ep, { params: { id: this.runId, ...(agent === undefined ? {} : { agent }) } }, this.baseUrl), schema, {
      method: ep.method,
      json: body,
      headers: authorization(this.token),
      init: { signal: AbortSignal.timeout(timeoutMs) },
    });
  }
}

/**
 * Why this token cannot read what a coordinator reads (its run's curve, between levels of an
 * adaptive plan and at the end, and the run's agents), or null. Only on a server with token reads
 * (KNEEBOARD_READ=token), where an ingest token reads a run's status alone: asked once, before any
 * run is made, with a read every scope but ingest and share may do.
 */
export async function coordinatorReadProblem(baseUrl: string, token: string | undefined): Promise<string | null> {
  try {
    await fetchApi(endpointUrl(ENDPOINTS.listRuns, { query: { limit: 1 } }, baseUrl), z.unknown(), {
      headers: authorization(token),
      init: { signal: AbortSignal.timeout(15_000) },
    });
    return null;
  } catch (err) {
    if (!(err instanceof ApiHttpError) || (err.status !== 401 && err.status !== 403)) return null; // the preflight and the run's creation say what else is wrong
    return `--agents: this API requires a token to read runs (KNEEBOARD_READ=token) and the coordinator reads its run's curve and agents, which ${token === undefined ? 'no token' : 'this token'} cannot (${err.status}: ${err.body?.message ?? 'refused'}). Give the coordinator a write token (kneeboard token create --scope write); the agents keep their ingest tokens`;
  }
}
