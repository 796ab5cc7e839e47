import { getRun, listSteps, queryCurve, type Db } from '@kneeboard/clickhouse';
import type { RunDetail } from '@kneeboard/contracts';

/** The run, its step windows and its curve, read in parallel. Null when the run does not exist. */
export async function loadRunDetail(db: Db, runId: string): Promise<RunDetail | null> {
  const [run, steps, curve] = await Promise.all([getRun(db, runId), listSteps(db, runId), queryCurve(db, runId)]);
  if (!run) return null;
  return { run, steps, curve };
}
