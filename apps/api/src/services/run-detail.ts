import { analyzeCurve } from '@kneeboard/analysis';
import { getRun, listSteps, queryCurve, type Db } from '@kneeboard/clickhouse';
import type { RunDetail } from '@kneeboard/contracts';

/**
 * The run, its step windows, its curve and the analysis of that curve, read in parallel. The
 * analysis is pure and takes milliseconds, so it is recomputed with every snapshot rather than
 * stored. Null when the run does not exist.
 */
export async function loadRunDetail(db: Db, runId: string): Promise<RunDetail | null> {
  const [run, steps, curve] = await Promise.all([getRun(db, runId), listSteps(db, runId), queryCurve(db, runId)]);
  if (!run) return null;
  const analysis = analyzeCurve({ curve, load_model: run.load_model, parameter: run.parameter });
  return { run, steps, curve, analysis };
}
