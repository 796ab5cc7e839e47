import { z } from 'zod';
import type { Db } from '../db.ts';

/** A run's state as the write path needs it: status, when it finished, and the time its steps cover. */
export interface RunSpan {
  status: string;
  created_at: number;
  finished_at: number | null;
  /** Earliest step start and latest step end (or start, for an open step); null without steps. */
  steps_from: number | null;
  steps_to: number | null;
  /** True while a step has no end yet. */
  open_step: boolean;
  /** The levels the run has a step window for (an event at another level is counted in no step). */
  levels: number[];
}

const SpanRow = z.object({
  status: z.string(),
  created_at: z.coerce.number(),
  finished_at: z.coerce.number().nullable(),
  steps: z.coerce.number(),
  steps_from: z.number().nullable(),
  steps_to: z.number().nullable(),
  open_steps: z.coerce.number(),
  levels: z.array(z.number()),
});

/**
 * One query for the run and its step span; null when the run does not exist — or has been deleted
 * (kb_deleted_runs_v1), even while its rows are still being removed: the write path of every API
 * process refuses a deleted run from this answer.
 */
export async function getRunSpan(db: Db, runId: string): Promise<RunSpan | null> {
  const result = await db.client.query({
    query: `SELECT r.status AS status,
                   toUnixTimestamp64Milli(r.created_at) AS created_at,
                   if(r.finished_at IS NULL, NULL, toUnixTimestamp64Milli(assumeNotNull(r.finished_at))) AS finished_at,
                   s.steps AS steps, s.steps_from AS steps_from, s.steps_to AS steps_to, s.open_steps AS open_steps, s.levels AS levels
            FROM (SELECT status, created_at, finished_at FROM kb_runs_v1 FINAL
                  WHERE id = {run_id:UUID} AND {run_id:UUID} NOT IN (SELECT run_id FROM kb_deleted_runs_v1 WHERE run_id = {run_id:UUID})) AS r
            CROSS JOIN (SELECT count() AS steps,
                               if(count() = 0, NULL, min(started_at_ms)) AS steps_from,
                               if(count() = 0, NULL, max(greatest(ifNull(ended_at_ms, 0), started_at_ms))) AS steps_to,
                               countIf(ended_at_ms IS NULL) AS open_steps,
                               groupUniqArray(level) AS levels
                        FROM kb_steps_v1 FINAL WHERE run_id = {run_id:UUID}) AS s`,
    query_params: { run_id: runId },
    format: 'JSONEachRow',
  });
  const row = z.array(SpanRow).parse(await result.json())[0];
  if (!row) return null;
  return {
    status: row.status,
    created_at: row.created_at,
    finished_at: row.finished_at,
    steps_from: row.steps === 0 ? null : row.steps_from,
    steps_to: row.steps === 0 ? null : row.steps_to,
    open_step: row.open_steps > 0,
    levels: row.levels,
  };
}
