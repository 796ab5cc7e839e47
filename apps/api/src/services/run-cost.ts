import { runCost } from '@kneeboard/analysis';
import { queryServerMetrics, type Db } from '@kneeboard/clickhouse';
import type { RunCost, RunDetail } from '@kneeboard/contracts';

/** What each level of a run cost the server (issue 28): its stored server metrics read against its curve and knee. */
export async function loadRunCost(db: Db, detail: Pick<RunDetail, 'run' | 'curve' | 'steps' | 'analysis'>): Promise<RunCost> {
  const metrics = await queryServerMetrics(db, detail.run.id);
  return runCost({ curve: detail.curve, steps: detail.steps, metrics, knee: detail.analysis.knee?.level ?? null, parameter: detail.run.parameter });
}
