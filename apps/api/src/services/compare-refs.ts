import { listRuns, type Db } from '@kneeboard/clickhouse';
import { MAX_RUNS_PER_GROUP, type CompareQuery, type RunGroupRef, type SloClause } from '@kneeboard/contracts';
import { HttpError } from '../errors.ts';

/** A comparison with every side as run ids: what buildComparison reads. */
export interface ResolvedCompare {
  base: string[];
  head: string[][];
  min_effect: number;
  /** Pins the run-to-run history a single-run side borrows (epoch ms); the newest when absent. */
  noise_asof?: number | undefined;
  /** Capacity at these SLOs for base and each head (`slo=`); none when absent. */
  slo?: SloClause[] | undefined;
  /** One request name's curves compared instead of the whole runs' (`name=`). */
  name?: string | undefined;
}

/**
 * A side's run ids. `release:SERVICE@RELEASE` is the release's finished runs, newest first, at most
 * MAX_RUNS_PER_GROUP: a failed or aborted run measured less than the sweep, and a running one is not
 * done. A release with none answers 404 naming the field and the release.
 */
async function resolveSide(db: Db, ref: RunGroupRef, field: string): Promise<string[]> {
  if (ref.kind === 'runs') return ref.ids;
  const runs = await listRuns(db, { service: ref.service, release: ref.release, status: 'finished', limit: MAX_RUNS_PER_GROUP });
  if (runs.length === 0) throw new HttpError(404, `${field}: no finished run of release "${ref.release}" of service "${ref.service}"`, field);
  return runs.map((r) => r.id);
}

export async function resolveCompareQuery(db: Db, query: CompareQuery): Promise<ResolvedCompare> {
  const [base, ...head] = await Promise.all([resolveSide(db, query.base, 'base'), ...query.head.map((h, i) => resolveSide(db, h, query.head.length > 1 ? `head[${i}]` : 'head'))]);
  return { base: base!, head, min_effect: query.min_effect, noise_asof: query.noise_asof, slo: query.slo, ...(query.name === undefined ? {} : { name: query.name }) };
}
