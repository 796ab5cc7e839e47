import { ApiHttpError, callApi } from '@kneeboard/api-client';
import { ENDPOINTS, type RunAgents } from '@kneeboard/contracts';
import { serverEnv } from './env.ts';
import { requestCredential } from './server-credentials.ts';

/** One row of the "agents" table: an agent over the whole run. */
export interface AgentRow {
  agentId: string;
  host: string;
  state: RunAgents['agents'][number]['state'];
  /** Stored events, and what the agent said it recorded (null when it died before saying). */
  stored: number;
  recorded: number | null;
  clockOffsetMs: number;
  clockRttMs: number;
  /** The steps it had a share in, and how many of them went wrong for it. */
  steps: number;
  lostOrBehind: number;
  generatorLimited: number;
  /** Largest start after the barrier over its steps, ms. */
  worstStartMs: number | null;
}

/** Prepare: the API's per-agent, per-step records → one row per agent. */
export function agentRows(data: RunAgents): AgentRow[] {
  return data.agents.map((a) => {
    const parts = data.steps.filter((s) => s.agent_id === a.agent_id);
    const starts = parts.filter((s) => s.started_at !== null).map((s) => s.started_at! - s.barrier_at);
    return {
      agentId: a.agent_id,
      host: a.host,
      state: a.state,
      stored: a.stored,
      recorded: a.recorded,
      clockOffsetMs: a.clock_offset_ms,
      clockRttMs: a.clock_rtt_ms,
      steps: parts.length,
      lostOrBehind: parts.filter((s) => s.outcome !== 'ok').length,
      generatorLimited: parts.filter((s) => s.generator_limited === true).length,
      worstStartMs: starts.length === 0 ? null : Math.max(...starts),
    };
  });
}

/** The run's agents, or null when the API cannot say (an older API, or down): the panel is then left out. */
export async function getRunAgents(runId: string): Promise<RunAgents | null> {
  const { KNEEBOARD_API_URL: base } = serverEnv();
  // The request's own credential, as for the run itself: a share link's viewer sees the agents
  // of the run it shows (the API lets a share token read /agents), and no one sees more.
  const credential = await requestCredential();
  try {
    return await callApi(ENDPOINTS.runAgents, { params: { id: runId } }, {
      baseUrl: base,
      token: credential.kind !== 'none' ? credential.token : undefined,
      init: { cache: 'no-store', signal: AbortSignal.timeout(5_000) },
    });
  } catch (err) {
    // An API that answers but cannot say (an older one: 404) leaves the panel out quietly.
    if (err instanceof ApiHttpError) return null;
    // The run page must render without this panel; the reason goes to the server log.
    console.warn(`agents of run ${runId}: ${(err as Error).message}`);
    return null;
  }
}
