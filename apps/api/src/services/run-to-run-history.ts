import { runToRunNoise, type RunToRunNoise } from '@kneeboard/analysis/compare';
import { cacheOf, listRuns, queryCurve, runsDataVersion, type Db } from '@kneeboard/clickhouse';
import type { Run } from '@kneeboard/contracts';

/** The newest this-many runs of a service are searched for repeats; enough history, bounded work. */
export const RUNS_SEARCHED = 60;
const RELEASES_USED = 6;
const RUNS_PER_RELEASE = 5;

/**
 * The run-to-run noise of a service, measured where it has been measured: releases with two or
 * more finished runs (e.g. from `kneeboard sweep --repeat`), level by level. Null when there are
 * too few repeats to say.
 *
 * Every comparison with a single run on a side asks for it, so it is kept per service with the
 * version of the runs it used (their ids and their data's versions: three small reads); a new
 * finished repeat, or late data in one, makes the next comparison compute it again.
 */
export async function serviceRunToRunNoise(db: Db, service: string): Promise<RunToRunNoise | null> {
  const runs = await listRuns(db, { service, status: 'finished', limit: RUNS_SEARCHED });
  const byRelease = new Map<string, Run[]>();
  for (const run of runs) byRelease.set(run.release, [...(byRelease.get(run.release) ?? []), run]);
  const repeated = [...byRelease.values()].filter((group) => group.length >= 2).slice(0, RELEASES_USED).map((g) => g.slice(0, RUNS_PER_RELEASE));
  if (repeated.length === 0) return null;

  const cache = cacheOf<RunToRunNoise | null>(db, 'run-to-run', 64);
  const version = await runsDataVersion(db, repeated.flat().map((r) => r.id));
  const kept = cache.get(service, version);
  if (kept !== undefined) return kept;

  const values = { runs: 0, releases: repeated.length, qps: [] as number[][], p50_ms: [] as number[][], p99_ms: [] as number[][] };
  for (const group of repeated) {
    const curves = await Promise.all(group.map(async (r) => (await queryCurve(db, r.id)).curve));
    values.runs += group.length;
    const levels = new Set(curves.flatMap((c) => c.map((p) => p.level)));
    for (const level of levels) {
      const points = curves.flatMap((c) => c.filter((p) => p.level === level && !p.in_progress));
      values.qps.push(points.map((p) => p.qps));
      values.p50_ms.push(points.flatMap((p) => (p.p50_ms === null ? [] : [p.p50_ms])));
      values.p99_ms.push(points.flatMap((p) => (p.p99_ms === null ? [] : [p.p99_ms])));
    }
  }
  const noise = runToRunNoise(values);
  cache.set(service, version, noise);
  return noise;
}
