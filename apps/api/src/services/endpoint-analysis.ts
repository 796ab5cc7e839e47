import { analyzeEndpoints } from '@kneeboard/analysis';
import { queryCurve, type Db, type RunName } from '@kneeboard/clickhouse';
import type { EndpointAnalysis, PercentilesWanted, RunDetail } from '@kneeboard/contracts';

/**
 * The names whose curves are analysed, the busiest first: each is a curve read (kept per version
 * of the run, like the run's own), and past a few dozen endpoints the ones that matter for
 * "which gives out first" are the ones with the traffic.
 */
export const MAX_ANALYSED_NAMES = 50;

/** Every name's curve, then which endpoint saturates first and which dominates p99 at the run's knee. */
export async function endpointAnalysis(db: Db, total: RunDetail, names: RunName[], percentiles: PercentilesWanted): Promise<EndpointAnalysis> {
  const busiest = [...names].sort((a, b) => b.requests - a.requests).slice(0, MAX_ANALYSED_NAMES);
  const curves = [];
  // One after another: the embedded engine runs one query at a time anyway, and a server is spared a burst.
  for (const n of busiest) curves.push({ name: n.name, requests: n.requests, curve: (await queryCurve(db, total.run.id, percentiles, n.name)).curve });
  return analyzeEndpoints({
    runKnee: total.analysis.knee?.level ?? null,
    levels: total.curve.map((p) => p.level),
    load_model: total.run.load_model,
    parameter: total.run.parameter,
    names: curves,
  });
}
