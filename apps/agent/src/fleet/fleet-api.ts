import { fetchApi } from '@kneeboard/api-client';
import { z } from 'zod';
import {
  AgentJoinResponse,
  Assignment,
  ClockResponse,
  FleetStatus,
  RunAgents,
  RunDetail,
  type AgentJoinBody,
  type AgentStepReport,
  type FleetPlanInput,
} from '@kneeboard/contracts';

/**
 * The fleet routes of the API (/runs/{id}/fleet, /runs/{id}/agents/…), answers parsed by the
 * contracts. No retries of its own: a coordinator or an agent that loses the API mid-plan cannot
 * keep its barrier anyway, and says so.
 */
export class FleetApi {
  constructor(
    private readonly baseUrl: string,
    private readonly runId: string,
    private readonly token: string | undefined,
  ) {}

  plan(body: FleetPlanInput): Promise<unknown> {
    return this.call('POST', 'fleet', body, z.unknown());
  }

  /** More steps for an open plan. */
  addSteps(steps: FleetPlanInput['steps']): Promise<unknown> {
    return this.call('POST', 'fleet/steps', { steps }, z.unknown());
  }

  /** An open plan is complete. */
  close(): Promise<unknown> {
    return this.call('POST', 'fleet/close', undefined, z.unknown());
  }

  status(): Promise<FleetStatus> {
    return this.call('GET', 'fleet', undefined, FleetStatus);
  }

  detail(): Promise<RunDetail> {
    return this.call('GET', '', undefined, RunDetail);
  }

  agents(): Promise<RunAgents> {
    return this.call('GET', 'agents', undefined, RunAgents);
  }

  clock(t0: number): Promise<ClockResponse> {
    return this.call('POST', 'agents/clock', { t0 }, ClockResponse);
  }

  join(body: AgentJoinBody): Promise<AgentJoinResponse> {
    return this.call('POST', 'agents', body, AgentJoinResponse);
  }

  next(agentId: string, after: number, waitMs: number): Promise<Assignment> {
    return this.call('POST', `agents/${encodeURIComponent(agentId)}/next`, { after, wait_ms: waitMs }, Assignment, waitMs + 15_000);
  }

  heartbeat(agentId: string, index: number): Promise<unknown> {
    return this.call('POST', `agents/${encodeURIComponent(agentId)}/heartbeat`, { index }, z.unknown());
  }

  report(agentId: string, report: AgentStepReport): Promise<unknown> {
    return this.call('POST', `agents/${encodeURIComponent(agentId)}/steps`, report, z.unknown());
  }

  leave(agentId: string, recorded: number, uploaded: number, recordedByRun?: Record<string, number>): Promise<unknown> {
    return this.call('POST', `agents/${encodeURIComponent(agentId)}/leave`, { recorded, uploaded, ...(recordedByRun ? { recorded_by_run: recordedByRun } : {}) }, z.unknown());
  }

  /** Through the shared core (@kneeboard/api-client): a refusal is its ApiHttpError (status, the API's message). */
  private call<T>(method: 'GET' | 'POST', path: string, body: unknown, schema: z.ZodType<T>, timeoutMs = 15_000): Promise<T> {
    return fetchApi(`${this.baseUrl.replace(/\/+$/, '')}/api/v1/runs/${this.runId}${path === '' ? '' : `/${path}`}`, schema, {
      method,
      json: body,
      headers: this.token !== undefined ? { authorization: `Bearer ${this.token}` } : {},
      init: { signal: AbortSignal.timeout(timeoutMs) },
    });
  }
}
