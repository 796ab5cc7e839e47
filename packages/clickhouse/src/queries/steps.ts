import { z } from 'zod';
import type { StepConnections, StepHealth, StepWindow } from '@kneeboard/contracts';
import { insertSettings, type Db } from '../db.ts';

const HEALTH_COLUMNS = `target, in_flight_mean, late_sends, missed_sends, agent_cpu_cores, event_loop_delay_p99_ms, generator_limited, health_reason`;

const CONNECTION_COLUMNS = `connections_opened, handshake_p50_ms, handshake_p99_ms, handshake_max_ms`;

const ConnectionColumns = z.object({
  connections_opened: z.coerce.number().nullable(),
  handshake_p50_ms: z.number().nullable(),
  handshake_p99_ms: z.number().nullable(),
  handshake_max_ms: z.number().nullable(),
});
type ConnectionColumns = z.infer<typeof ConnectionColumns>;

const HealthColumns = z.object({
  target: z.number().nullable(),
  in_flight_mean: z.number().nullable(),
  late_sends: z.coerce.number().nullable(),
  missed_sends: z.coerce.number().nullable(),
  agent_cpu_cores: z.number().nullable(),
  event_loop_delay_p99_ms: z.number().nullable(),
  generator_limited: z.coerce.number().nullable(),
  health_reason: z.string().nullable(),
});
type HealthColumns = z.infer<typeof HealthColumns>;

const StepRow = HealthColumns.extend(ConnectionColumns.shape).extend({
  level: z.number(),
  started_at: z.number(),
  measure_from: z.number(),
  ended_at: z.number().nullable(),
});

function healthToColumns(h: StepHealth | null | undefined): HealthColumns {
  return {
    target: h?.target ?? null,
    in_flight_mean: h?.in_flight_mean ?? null,
    late_sends: h?.late_sends ?? null,
    missed_sends: h?.missed_sends ?? null,
    agent_cpu_cores: h?.agent_cpu_cores ?? null,
    event_loop_delay_p99_ms: h?.event_loop_delay_p99_ms ?? null,
    generator_limited: h ? Number(h.generator_limited) : null,
    health_reason: h?.reason ?? null,
  };
}

/** Health is stored only when the agent reported it: a step without `target` has none. */
export function columnsToHealth(c: HealthColumns): StepHealth | null {
  if (c.target === null || c.generator_limited === null) return null;
  return {
    target: c.target,
    in_flight_mean: c.in_flight_mean,
    late_sends: c.late_sends ?? 0,
    missed_sends: c.missed_sends ?? 0,
    agent_cpu_cores: c.agent_cpu_cores,
    event_loop_delay_p99_ms: c.event_loop_delay_p99_ms,
    generator_limited: c.generator_limited === 1,
    reason: c.health_reason,
  };
}

function connectionsToColumns(c: StepConnections | null | undefined): ConnectionColumns {
  return {
    connections_opened: c?.opened ?? null,
    handshake_p50_ms: c?.handshake_p50_ms ?? null,
    handshake_p99_ms: c?.handshake_p99_ms ?? null,
    handshake_max_ms: c?.handshake_max_ms ?? null,
  };
}

/** A step without `connections_opened` has no summary (stored before it existed, or an agent that does not count). */
function columnsToConnections(c: ConnectionColumns): StepConnections | null {
  if (c.connections_opened === null) return null;
  return { opened: c.connections_opened, handshake_p50_ms: c.handshake_p50_ms, handshake_p99_ms: c.handshake_p99_ms, handshake_max_ms: c.handshake_max_ms };
}

export async function upsertStep(db: Db, runId: string, step: StepWindow): Promise<void> {
  const row = {
    run_id: runId,
    level: step.level,
    started_at_ms: step.started_at,
    measure_from_ms: step.measure_from,
    ended_at_ms: step.ended_at,
    ...healthToColumns(step.health),
    ...connectionsToColumns(step.connections),
  };
  await db.writes.run(() =>
    db.client.insert({ table: 'kb_steps_v1', values: [row], format: 'JSONEachRow', clickhouse_settings: insertSettings() }),
  );
}

export async function listSteps(db: Db, runId: string): Promise<StepWindow[]> {
  const result = await db.client.query({
    query: `SELECT level, started_at_ms AS started_at, measure_from_ms AS measure_from, ended_at_ms AS ended_at, ${HEALTH_COLUMNS}, ${CONNECTION_COLUMNS}
            FROM kb_steps_v1 FINAL WHERE run_id = {run_id:UUID} ORDER BY level`,
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  return z
    .array(StepRow)
    .parse(await result.json())
    .map((r) => {
      const connections = columnsToConnections(r);
      // Only where the agent sent one: steps without it read exactly as before.
      return { level: r.level, started_at: r.started_at, measure_from: r.measure_from, ended_at: r.ended_at, health: columnsToHealth(r), ...(connections ? { connections } : {}) };
    });
}
