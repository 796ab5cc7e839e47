import { analyzeCurve } from '@kneeboard/analysis';
import { getRun, listSteps, queryCurve, queryRunNames, type Db } from '@kneeboard/clickhouse';
import type { CurvePoint, PercentileSource, PercentilesWanted, Run, RunDetail, RunNameCount, StepWindow } from '@kneeboard/contracts';
import { notFound } from '../errors.ts';
import { endpointAnalysis } from './endpoint-analysis.ts';

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
export async function loadRunDetail(db: Db, runId: string, percentiles: PercentilesWanted = 'auto', view: NameView = {}): Promise<RunDetail | null> {
  const [run, steps, answer, names] = await Promise.all([getRun(db, runId), listSteps(db, runId), queryCurve(db, runId, percentiles, view.name), queryRunNames(db, runId)]);
  if (!run) return null;
  requireName(names, view.name);
  const detail = composeRunDetail(run, steps, answer.curve, answer.percentiles);
  if (names.length === 0) return detail;
  // Each name's knee is judged against the whole run's: the run's own knee, from its own curve (read only when analysed).
  const total = async () => (view.name === undefined ? detail : composeRunDetail(run, steps, (await queryCurve(db, runId, percentiles)).curve, answer.percentiles));
  return {
    ...detail,
    names,
    ...(view.name === undefined ? {} : { name: view.name }),
    ...(view.endpoints ? { endpoints: await endpointAnalysis(db, await total(), percentiles) } : {}),
  };
}

/** A name the run does not carry has no curve: 404 naming the parameter, not an empty chart (GET /runs/{id} and its live stream). */
export function requireName(names: readonly RunNameCount[], name: string | undefined): void {
  if (name !== undefined && !names.some((n) => n.name === name)) throw notFound(`request name ${JSON.stringify(name)} in this run`, 'name');
}

/** Which name's curve to answer (none: the whole run's), and whether to analyse every name's (`endpoints`). */
export interface NameView {
  name?: string | undefined;
  endpoints?: boolean;
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
  view: NameView = {},
): Promise<RunDetail> {
  const detail = await loadRunDetail(db, runId, percentiles, view);
  if (!detail) throw notFound('run', field);
  return detail;
}
