import { analyzeEndpoints } from '@kneeboard/analysis';
import type { Db } from '@kneeboard/clickhouse';
import type { EndpointAnalysis, PercentilesWanted, RunDetail } from '@kneeboard/contracts';
import { loadNameCurves } from './name-curves.ts';

/**
 * The names whose curves are analysed, the busiest first: past a few dozen endpoints the ones that
 * matter for "which gives out first" are the ones with the traffic.
 */
export const MAX_ANALYSED_NAMES = 50;

/**
 * The busiest names' curves, then which endpoint saturates first and which dominates p99 at the
 * run's knee. The curves are `GET /runs/{id}/names`' own (loadNameCurves: one grouped statement,
 * each name's curve the one `?name=` answers, kept per version of the run), so a run page that
 * asks for the run and for its endpoints' curves reads them once, and a finished run's detail
 * reads them only the first time.
 */
export async function endpointAnalysis(db: Db, total: RunDetail, percentiles: PercentilesWanted): Promise<EndpointAnalysis> {
  const read = await loadNameCurves(db, total.run.id, percentiles, MAX_ANALYSED_NAMES);
  const curves = (read?.names ?? []).map((n) => ({ name: n.name, requests: n.requests, curve: n.curve }));
  return analyzeEndpoints({
    runKnee: total.analysis.knee?.level ?? null,
    levels: total.curve.map((p) => p.level),
    load_model: total.run.load_model,
    parameter: total.run.parameter,
    names: curves,
  });
}
