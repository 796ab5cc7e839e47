import { capacitySearchState } from '@kneeboard/analysis';
import type { Db } from '@kneeboard/clickhouse';
import { parseSlos, searchTagsOf, type RunDetail } from '@kneeboard/contracts';
import { runCapacity } from './run-capacity.ts';

/**
 * A `kneeboard sweep --search` run (its tags name the search's SLOs) gets `search`: the search as it
 * stands, replayed from its steps by the agent's own planner under the capacity the API judges now
 * (one samples query). Any other run is returned as it is, with no query.
 */
export async function withSearch(db: Db, detail: RunDetail): Promise<RunDetail> {
  const settings = searchTagsOf(detail.run.tags);
  const parsed = settings ? parseSlos(settings.slo) : null;
  if (!settings || !parsed?.ok) return detail;
  const capacity = await runCapacity(db, detail, parsed.clauses);
  // As the agent's planner saw the levels: a concurrency or an offered rate, or a knob's values
  // (a parameter sweep, searched as a closed loop: whole numbers when every level is one).
  const { parameter, load_model: model } = detail.run;
  const swept = parameter === 'concurrency' || parameter === 'rate';
  const loadModel = swept ? model : 'closed';
  const integer = swept ? model === 'closed' : detail.steps.every((s) => Number.isInteger(s.level));
  return { ...detail, search: capacitySearchState({ steps: detail.steps, capacity, slos: parsed.clauses, settings, loadModel, integer }) };
}
