import { analyzeCurve } from '@kneeboard/analysis';
import { cacheOf, getRun, NO_DATA, queryNameCurves, queryRunNames, readRunState, versionKey, type Db } from '@kneeboard/clickhouse';
import type { CurvePoint, NameCurve, PercentileSource, PercentilesWanted, Run, RunNameCurves } from '@kneeboard/contracts';

/** A name's whole curve (every CurvePoint field) with its knee: what the JSON answer and the per-name CSV are made from. */
export interface FullNameCurve {
  name: string;
  requests: number;
  knee_level: number | null;
  curve: CurvePoint[];
}

export interface NameCurvesRead {
  run: Run;
  percentiles: PercentileSource | null;
  names: FullNameCurve[];
  omitted: number;
}

/**
 * Every request name's curve, busiest first, at most `max` of them. Each curve is the very points
 * `GET /runs/{id}?name=` (queryCurve) draws, from raw rows for a small run and the per-name rollup
 * above — read for all the names in one statement (queryNameCurves: `name` grouped on instead of
 * filtered on), not one read per name. The whole answer is kept per version of the run (one small
 * read checks it), so a page that shows every endpoint costs one round trip once the run has
 * finished. Each knee is found as the endpoint analysis finds it: the name's curve analysed as a
 * run of its own.
 * Null when the run does not exist.
 */
export async function loadNameCurves(db: Db, runId: string, wanted: PercentilesWanted, max: number): Promise<NameCurvesRead | null> {
  const run = await getRun(db, runId);
  if (!run) return null;
  const state = await readRunState(db, [runId]);
  const { versions, windows } = state;
  const version = versionKey(versions.get(runId) ?? NO_DATA, windows);
  const cache = cacheOf<KeptRead>(db, `name-curves-${wanted}`, 64);
  const kept = keptAnswer(cache.get(runId, version), max);
  if (kept) return { run, ...kept };
  const names = await queryRunNames(db, runId);
  const busiest = [...names].sort((a, b) => b.requests - a.requests || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(0, max);
  let percentiles: PercentileSource | null = null;
  const curves: FullNameCurve[] = [];
  if (busiest.length > 0) {
    const answer = await queryNameCurves(db, runId, wanted, busiest.map((n) => n.name), state);
    percentiles = answer.percentiles;
    for (const n of busiest) {
      const curve = answer.curves.get(n.name) ?? [];
      const knee = curve.length > 0 ? analyzeCurve({ curve, load_model: run.load_model, parameter: run.parameter }).knee : null;
      curves.push({ name: n.name, requests: n.requests, knee_level: knee?.level ?? null, curve });
    }
  }
  const read = { percentiles, names: curves, omitted: names.length - busiest.length };
  cache.set(runId, version, { max, read });
  return { run, ...read };
}

/** A kept answer and the `max` it was read with. */
interface KeptRead {
  max: number;
  read: Omit<NameCurvesRead, 'run'>;
}

/**
 * What a kept answer says for `max`: itself when read with the same cap, and a slice of it when it
 * holds every name of the run — the busiest `max` of a complete answer are what a read capped at
 * `max` gives (same order, each name's curve and knee its own). So `/names` (capped at the
 * per-run name cap) and the comparison's per-endpoint summary (every name) share one read.
 */
function keptAnswer(kept: KeptRead | undefined, max: number): Omit<NameCurvesRead, 'run'> | null {
  if (!kept) return null;
  if (kept.max === max) return kept.read;
  if (kept.read.omitted !== 0) return null;
  const names = kept.read.names.slice(0, max);
  return { percentiles: kept.read.percentiles, names, omitted: kept.read.names.length - names.length };
}

/** The JSON answer: each point cut to what a chart per endpoint reads. */
export function nameCurvesBody(read: NameCurvesRead): RunNameCurves {
  const names: NameCurve[] = read.names.map((n) => ({
    name: n.name,
    requests: n.requests,
    knee_level: n.knee_level,
    curve: n.curve.map((p) => ({ level: p.level, requests: p.requests, errors: p.errors, qps: p.qps, p50_ms: p.p50_ms, p99_ms: p.p99_ms })),
  }));
  return { percentiles: read.percentiles, names, omitted: read.omitted };
}
