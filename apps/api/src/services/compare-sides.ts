import { levelFlags, type RunGroup, type RunSamples } from '@kneeboard/analysis/compare';
import { queryComparisonSamples, queryCurve, queryNameLevelSamples, type Db, type LevelSampleRows } from '@kneeboard/clickhouse';
import type { PercentileSource, RunDetail } from '@kneeboard/contracts';
import { notFound } from '../errors.ts';
import { composeRunDetail } from './run-detail.ts';

/**
 * What one side's run is compared on: the whole run's detail, or with `name`, that request name's
 * curve (its own knee) read over the same steps. Levels where the agent was the limit are the whole
 * run's flags either way: a generator that could not hold the load held none of its names.
 * `samples`, when already read (the per-endpoint summary reads every name's at once), are used as they are.
 */
export interface Compared {
  detail: RunDetail;
  flags: Map<number, string>;
  name?: string;
  samples?: LevelSampleRows[];
}

export const wholeRun = (d: RunDetail): Compared => ({ detail: d, flags: levelFlags(d.curve, d.analysis.littles_law, d.run.parameter) });

/** A run's side of one name's comparison; 404 naming `name` when the run's events do not carry it. */
export async function namedSide(db: Db, total: RunDetail, name: string, field: string): Promise<Compared> {
  if (!(total.names ?? []).some((n) => n.name === name)) throw notFound(`request name ${JSON.stringify(name)} in ${field} run ${total.run.id}`, 'name');
  const { curve, percentiles } = await queryCurve(db, total.run.id, total.percentiles ?? 'auto', name);
  return namedDetail(total, name, curve, percentiles);
}

/** A name's side from its curve: the run's steps and flags, the name's own points and analysis. */
export function namedDetail(total: RunDetail, name: string, curve: RunDetail['curve'], percentiles: PercentileSource): Compared {
  const detail = { ...composeRunDetail(total.run, total.steps, curve, percentiles), name };
  return { detail, flags: wholeRun(total).flags, name };
}

/**
 * A side's samples: the ones already read; for one name, that name's raw rows, read by the same
 * grouped query the per-endpoint summary reads every name with (so `name=` and the summary draw the
 * same sample); for the whole run, from where its curve came from.
 */
async function sideSamples(db: Db, side: Compared): Promise<{ samples: LevelSampleRows[]; source: PercentileSource }> {
  const { detail, name } = side;
  if (side.samples) return { samples: side.samples, source: 'exact' };
  if (name !== undefined) return { samples: (await queryNameLevelSamples(db, detail.run.id, [name])).get(name) ?? [], source: 'exact' };
  return queryComparisonSamples(db, detail.run.id, detail.percentiles ?? 'rollup');
}

export async function samplesOf(db: Db, side: Compared, label: string, sources: Map<string, PercentileSource>): Promise<RunSamples> {
  const { detail } = side;
  const { samples, source } = await sideSamples(db, side);
  sources.set(detail.run.id, source);
  return {
    label,
    run_id: detail.run.id,
    curve: detail.curve,
    knee: detail.analysis.knee?.level ?? null,
    knee_bracket: detail.analysis.knee?.bracket ?? null,
    samples,
    flags: side.flags,
  };
}

export async function groupOf(db: Db, sides: Compared[], label: string, sources: Map<string, PercentileSource>): Promise<RunGroup> {
  const runs: RunSamples[] = [];
  for (const d of sides) runs.push(await samplesOf(db, d, label, sources));
  return { label, runs };
}
