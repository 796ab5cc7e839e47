import { z } from 'zod';
import type { StepWindow } from '@kneeboard/contracts';
import { insertSettings, type Db } from '../db.ts';
import { nextVersion } from '../version.ts';

const StepRow = z.object({
  level: z.number(),
  started_at: z.number(),
  measure_from: z.number(),
  ended_at: z.number().nullable(),
});

export async function upsertStep(db: Db, runId: string, step: StepWindow): Promise<void> {
  const row = {
    run_id: runId,
    level: step.level,
    started_at_ms: step.started_at,
    measure_from_ms: step.measure_from,
    ended_at_ms: step.ended_at,
    version: nextVersion(),
  };
  await db.writes.run(() =>
    db.client.insert({ table: 'kb_steps_v1', values: [row], format: 'JSONEachRow', clickhouse_settings: insertSettings() }),
  );
}

export async function listSteps(db: Db, runId: string): Promise<StepWindow[]> {
  const result = await db.client.query({
    query: `SELECT level, started_at_ms AS started_at, measure_from_ms AS measure_from, ended_at_ms AS ended_at
            FROM kb_steps_v1 FINAL WHERE run_id = {run_id:UUID} ORDER BY level`,
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  return z.array(StepRow).parse(await result.json());
}
