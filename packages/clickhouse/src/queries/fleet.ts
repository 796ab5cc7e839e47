import { z } from 'zod';
import { FleetAgent, FleetAgentStep, type RunAgents } from '@kneeboard/contracts';
import { insertSettings, type Db } from '../db.ts';
import { RAW_EVENTS } from '../raw-events.ts';

export interface FleetAgentRow {
  run_id: string;
  agent_id: string;
  host: string;
  cores: number | null;
  clock_offset_ms: number;
  clock_rtt_ms: number;
  joined_at_ms: number;
  state: 'joined' | 'left' | 'lost';
  recorded: number | null;
}

export interface FleetStepRow {
  run_id: string;
  step_index: number;
  level: number;
  agent_id: string;
  load: number;
  barrier_at_ms: number;
  started_at_ms: number | null;
  ended_at_ms: number | null;
  events: number | null;
  outcome: 'ok' | 'lost' | 'behind';
  generator_limited: number | null;
  health_reason: string | null;
}

/** A new version of an agent's row (join, leave, loss): the newest wins. */
export async function writeFleetAgent(db: Db, row: FleetAgentRow): Promise<void> {
  await db.writes.run(() => db.client.insert({ table: 'kb_fleet_agents_v1', values: [row], format: 'JSONEachRow', clickhouse_settings: insertSettings() }));
}

/** The agents' parts in one step, written together when the step is settled. */
export async function writeFleetSteps(db: Db, rows: FleetStepRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.writes.run(() => db.client.insert({ table: 'kb_fleet_steps_v1', values: rows, format: 'JSONEachRow', clickhouse_settings: insertSettings() }));
}

const AgentRow = z.object({
  agent_id: z.string(),
  host: z.string(),
  cores: z.coerce.number().nullable(),
  clock_offset_ms: z.number(),
  clock_rtt_ms: z.number(),
  joined_at: z.number(),
  state: FleetAgent.shape.state,
  recorded: z.coerce.number().nullable(),
});

/** The contract's step, with the columns ClickHouse sends as strings (UInt64) or 0/1 coerced. */
const StepRow = FleetAgentStep.extend({
  index: z.coerce.number(),
  events: z.coerce.number().nullable(),
  generator_limited: z.coerce.number().nullable(),
});

const Stored = z.object({ agent_id: z.string(), n: z.coerce.number() });

/** Who took part in a run and how each step went for each agent; empty for a run of one agent. */
export async function readRunAgents(db: Db, runId: string): Promise<RunAgents> {
  const params = { run_id: runId };
  const [agents, steps, stored] = await Promise.all([
    db.client.query({
      query: `SELECT agent_id, host, cores, clock_offset_ms, clock_rtt_ms, joined_at_ms AS joined_at, state, recorded
              FROM kb_fleet_agents_v1 FINAL WHERE run_id = {run_id:UUID} ORDER BY joined_at_ms, agent_id`,
      query_params: params,
      format: 'JSONEachRow',
    }),
    db.client.query({
      query: `SELECT step_index AS index, level, agent_id, load, barrier_at_ms AS barrier_at, started_at_ms AS started_at, ended_at_ms AS ended_at,
                     events, outcome, generator_limited, health_reason AS reason
              FROM kb_fleet_steps_v1 FINAL WHERE run_id = {run_id:UUID} ORDER BY step_index, agent_id`,
      query_params: params,
      format: 'JSONEachRow',
    }),
    db.client.query({
      query: `SELECT agent_id, count() AS n FROM ${RAW_EVENTS} WHERE run_id = {run_id:UUID} GROUP BY agent_id`,
      query_params: params,
      format: 'JSONEachRow',
    }),
  ]);
  const counts = new Map(z.array(Stored).parse(await stored.json()).map((r) => [r.agent_id, r.n]));
  return {
    agents: z
      .array(AgentRow)
      .parse(await agents.json())
      .map((a) => ({ ...a, stored: counts.get(a.agent_id) ?? 0 })),
    steps: z
      .array(StepRow)
      .parse(await steps.json())
      .map((s) => ({ ...s, generator_limited: s.generator_limited === null ? null : s.generator_limited === 1 })),
  };
}
