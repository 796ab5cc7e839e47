import { serviceHistory, type HistoryRun, type RunFeatures } from '@kneeboard/analysis';
import { levelFlags } from '@kneeboard/analysis/compare';
import { listRuns, type Db } from '@kneeboard/clickhouse';
import { parseSlos, type ServiceHistoryResponse } from '@kneeboard/contracts';
import { runCapacity } from './run-capacity.ts';
import { loadRunDetail } from './run-detail.ts';

/**
 * The newest runs read per request: each run's curve and analysis are computed here (no cache
 * yet), so the cost is bounded by this count.
 */
const MAX_HISTORY_RUNS = 200;

/** A service's comparable series and their change points, from its newest finished runs; null without any. */
export async function loadServiceHistory(db: Db, service: string): Promise<ServiceHistoryResponse | null> {
  const runs = (await listRuns(db, { service, limit: MAX_HISTORY_RUNS })).filter((r) => r.status !== 'running');
  if (runs.length === 0) return null;
  const history: HistoryRun[] = [];
  const features: RunFeatures[] = [];
  // One at a time: the storage is shared with ingest, and a history read is not urgent.
  for (const run of runs) {
    const detail = await loadRunDetail(db, run.id);
    if (!detail) continue;
    const measured = detail.curve.filter((p) => !p.in_progress && p.qps > 0);
    history.push({ ...run, labels: run.labels ?? [], levels: measured.map((p) => p.level) });
    const flags = levelFlags(detail.curve, detail.analysis.littles_law, run.parameter);
    const slo = run.tags.slo ? parseSlos(run.tags.slo) : null;
    const capacity = slo?.ok ? await runCapacity(db, detail, slo.clauses) : null;
    const knee = detail.analysis.knee;
    features.push({
      run_id: run.id,
      peak_qps: measured.length ? Math.max(...measured.map((p) => p.qps)) : null,
      knee: knee ? { level: knee.level, bracket: knee.bracket ?? null } : null,
      p99: measured.map((p) => ({ level: p.level, p99_ms: p.p99_ms })),
      capacity_qps: capacity?.qps ?? null,
      excluded: flags.size > 0 ? [...flags.values()][0]! : null,
    });
  }
  return { service, runs_read: history.length, series: serviceHistory(history, features) };
}
