import { analyzeEndpoints } from '@kneeboard/analysis';
import { queryNameCurves, type Db, type RunName } from '@kneeboard/clickhouse';
import type { EndpointAnalysis, PercentilesWanted, RunDetail } from '@kneeboard/contracts';

/**
 * The names whose curves are analysed, the busiest first: past a few dozen endpoints the ones that
 * matter for "which gives out first" are the ones with the traffic.
 */
export const MAX_ANALYSED_NAMES = 50;

/**
 * Every name's curve, then which endpoint saturates first and which dominates p99 at the run's
 * knee. The curves are read in one grouped statement (queryNameCurves: each name's curve is the
 * one `?name=` answers), not one read per name — cheap enough for every live snapshot read from storage.
 */
export async function endpointAnalysis(db: Db, total: RunDetail, names: RunName[], percentiles: PercentilesWanted): Promise<EndpointAnalysis> {
  const busiest = [...names].sort((a, b) => b.requests - a.requests).slice(0, MAX_ANALYSED_NAMES);
  const read = await queryNameCurves(db, total.run.id, percentiles, busiest.map((n) => n.name));
  const curves = busiest.map((n) => ({ name: n.name, requests: n.requests, curve: read.curves.get(n.name) ?? [] }));
  return analyzeEndpoints({
    runKnee: total.analysis.knee?.level ?? null,
    levels: total.curve.map((p) => p.level),
    load_model: total.run.load_model,
    parameter: total.run.parameter,
    names: curves,
  });
}
