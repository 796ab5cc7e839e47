import { runToRunNoise, type RunToRunNoise } from '@kneeboard/analysis/compare';
import { cacheOf, listRuns, queryCurve, runsDataVersion, type Db } from '@kneeboard/clickhouse';
import type { Run } from '@kneeboard/contracts';

/** The newest this-many finished runs of a service (as of the cut-off) are searched for repeats; enough history, bounded work. */
export const RUNS_SEARCHED = 60;
/**
 * Finished runs listed to find those of a pinned cut-off: a pin reads the same runs until this many
 * newer ones of the service have been added since.
 */
const RUNS_LISTED = 5000;
const RELEASES_USED = 6;
const RUNS_PER_RELEASE = 5;

/** The history a single-run side may borrow from: what it consulted, as of when, and what it found. */
export interface NoiseHistory {
  /** Null when there were too few repeats to say. */
  noise: RunToRunNoise | null;
  /** The repeats the noise was read from (empty when none). */
  runs: string[];
  /**
   * The cut-off: the newest finish time among the runs consulted. `noise_asof` with this value
   * reads exactly these runs again, however many finish later. Null when the service has none.
   */
  asof: number | null;
}

/**
 * The finished runs of a service consulted for repeats: the newest RUNS_SEARCHED (by creation),
 * among those finished at or before `asof` when given. Finish times only grow, so the newest finish
 * time among them names the same list again later.
 */
async function consultedRuns(db: Db, service: string, asof: number | undefined): Promise<Run[]> {
  if (asof === undefined) return listRuns(db, { service, status: 'finished', limit: RUNS_SEARCHED });
  const runs = await listRuns(db, { service, status: 'finished', limit: RUNS_LISTED });
  return runs.filter((r) => r.finished_at !== null && r.finished_at <= asof).slice(0, RUNS_SEARCHED);
}

/**
 * The run-to-run noise of a service, measured where it has been measured: releases with two or
 * more finished runs (e.g. from `kneeboard sweep --repeat`), level by level — as of now, or as of
 * a pinned cut-off (`asof`, epoch ms), so a permalink keeps its verdict while repeats accumulate.
 *
 * Every comparison with a single run on a side asks for it, so it is kept per service with the
 * version of the runs it used (their ids and their data's versions: three small reads); a new
 * finished repeat, or late data in one, makes the next comparison compute it again.
 */
export async function serviceRunToRunNoise(db: Db, service: string, asof?: number): Promise<NoiseHistory> {
  const runs = await consultedRuns(db, service, asof);
  const cutoff = runs.reduce<number | null>((m, r) => (r.finished_at !== null && (m === null || r.finished_at > m) ? r.finished_at : m), null);
  const byRelease = new Map<string, Run[]>();
  for (const run of runs) byRelease.set(run.release, [...(byRelease.get(run.release) ?? []), run]);
  const repeated = [...byRelease.values()].filter((group) => group.length >= 2).slice(0, RELEASES_USED).map((g) => g.slice(0, RUNS_PER_RELEASE));
  if (repeated.length === 0 || cutoff === null) return { noise: null, runs: [], asof: cutoff };
  const ids = repeated.flat().map((r) => r.id);

  const cache = cacheOf<RunToRunNoise | null>(db, 'run-to-run', 64);
  const version = await runsDataVersion(db, ids);
  const key = `${service}\u0000${ids.join(',')}`;
  const kept = cache.get(key, version);
  if (kept !== undefined) return { noise: kept && { ...kept, basis: { runs: ids, asof: cutoff } }, runs: kept ? ids : [], asof: cutoff };

  const values = { runs: 0, releases: repeated.length, qps: [] as number[][], p50_ms: [] as number[][], p99_ms: [] as number[][] };
  for (const group of repeated) {
    const curves = await Promise.all(group.map(async (r) => (await queryCurve(db, r.id)).curve));
    values.runs += group.length;
    const levels = new Set(curves.flatMap((c) => c.map((p) => p.level)));
    for (const level of [...levels].sort((a, b) => a - b)) {
      const points = curves.flatMap((c) => c.filter((p) => p.level === level && !p.in_progress));
      values.qps.push(points.map((p) => p.qps));
      values.p50_ms.push(points.flatMap((p) => (p.p50_ms === null ? [] : [p.p50_ms])));
      values.p99_ms.push(points.flatMap((p) => (p.p99_ms === null ? [] : [p.p99_ms])));
    }
  }
  const noise = runToRunNoise(values);
  cache.set(key, version, noise);
  return { noise: noise && { ...noise, basis: { runs: ids, asof: cutoff } }, runs: noise ? ids : [], asof: cutoff };
}

/** What a newer basis than the pinned one would add: finished repeats it reads that the pinned one does not. */
export function newerBasis(pinned: NoiseHistory, current: NoiseHistory): { runs: number; asof: number } | null {
  if (current.asof === null || (pinned.asof !== null && current.asof <= pinned.asof)) return null;
  const had = new Set(pinned.runs);
  const more = current.runs.filter((id) => !had.has(id)).length;
  return more > 0 ? { runs: more, asof: current.asof } : null;
}
