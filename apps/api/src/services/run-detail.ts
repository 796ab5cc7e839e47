import { analyzeCurve } from '@kneeboard/analysis';
import { getRun, listSteps, queryCurve, type Db } from '@kneeboard/clickhouse';
import type { CurvePoint, PercentileSource, PercentilesWanted, Run, RunDetail, StepWindow } from '@kneeboard/contracts';
import { notFound } from '../errors.ts';

/** Each level's point carries the agent's health for that step, so the curve says where the generator was the ceiling. */
function withHealth(curve: CurvePoint[], steps: StepWindow[]): CurvePoint[] {
  const health = new Map(steps.map((s) => [s.level, s.health ?? null]));
  return curve.map((p) => ({ ...p, health: health.get(p.level) ?? null }));
}

/**
 * The run, its step windows, its curve and the analysis of that curve, read in parallel. The
 * analysis is pure and takes milliseconds, so it is recomputed with every snapshot rather than
 * stored. Percentiles as asked (`auto`: the rollup for large runs, raw rows for small ones); the
 * detail says which it got. Null when the run does not exist.
 */
export async function loadRunDetail(db: Db, runId: string, percentiles: PercentilesWanted = 'auto'): Promise<RunDetail | null> {
  const [run, steps, answer] = await Promise.all([getRun(db, runId), listSteps(db, runId), queryCurve(db, runId, percentiles)]);
  if (!run) return null;
  return composeRunDetail(run, steps, answer.curve, answer.percentiles);
}

/** A run detail from its parts (a live view's curve from memory comes with the run and steps it last read). */
export function composeRunDetail(run: Run, steps: StepWindow[], curve: CurvePoint[], percentiles: PercentileSource): RunDetail {
  const withSteps = withHealth(curve, steps);
  const analysis = analyzeCurve({
    curve: withSteps.map((p) => ({ ...p, in_flight: p.health?.in_flight_mean ?? null })),
    load_model: run.load_model,
    parameter: run.parameter,
  });
  return { run, steps, curve: withSteps, percentiles, analysis };
}

/** The run detail, or a 404 naming the parameter that pointed at a run that does not exist. */
export async function requireRunDetail(
  db: Db,
  runId: string,
  field = 'id',
  percentiles: PercentilesWanted = 'auto',
): Promise<RunDetail> {
  const detail = await loadRunDetail(db, runId, percentiles);
  if (!detail) throw notFound('run', field);
  return detail;
}
