import { serviceHistory, type HistoryRun, type RunFeatures } from '@kneeboard/analysis';
import { levelFlags } from '@kneeboard/analysis/compare';
import { cacheOf, listRuns, NO_DATA, readRunState, serviceDataVersion, versionKey, type Db } from '@kneeboard/clickhouse';
import { parseSlos, type Run, type ServiceHistoryResponse } from '@kneeboard/contracts';
import { runCapacity } from './run-capacity.ts';
import { loadRunDetail } from './run-detail.ts';

/** The newest runs a history reads: a service swept on every merge for a few years. */
export const MAX_HISTORY_RUNS = 1_000;

/** Where a history read spent its time, ms: listing the runs, reading their versions, computing runs' features, the series and change points. */
export interface HistoryTimings {
  runs?: number;
  versions?: number;
  features?: number;
  series?: number;
}

interface RunEntry {
  history: HistoryRun;
  features: RunFeatures;
}

/** What a run's history features are computed from: its data and windows, status, finish, release, labels (a `series=` label regroups it) and SLO. */
function runVersion(run: Run, data: string): string {
  return [run.status, run.finished_at ?? '', run.release, (run.labels ?? []).join(','), run.tags.slo ?? '', data].join('|');
}

/** One run's point: its curve and analysis (the rollup's, as the run page shows), knee, p99s, capacity under its SLO tag. */
async function runEntry(db: Db, run: Run): Promise<RunEntry | null> {
  const detail = await loadRunDetail(db, run.id);
  if (!detail) return null;
  const measured = detail.curve.filter((p) => !p.in_progress && p.qps > 0);
  const flags = levelFlags(detail.curve, detail.analysis.littles_law, run.parameter);
  const slo = run.tags.slo ? parseSlos(run.tags.slo) : null;
  const capacity = slo?.ok ? await runCapacity(db, detail, slo.clauses) : null;
  const knee = detail.analysis.knee;
  return {
    history: { ...run, labels: run.labels ?? [], levels: measured.map((p) => p.level) },
    features: {
      run_id: run.id,
      peak_qps: measured.length ? Math.max(...measured.map((p) => p.qps)) : null,
      knee: knee ? { level: knee.level, bracket: knee.bracket ?? null } : null,
      p99: measured.map((p) => ({ level: p.level, p99_ms: p.p99_ms })),
      capacity_qps: capacity?.qps ?? null,
      excluded: flags.size > 0 ? [...flags.values()][0]! : null,
    },
  };
}

/**
 * A service's comparable series and their change points, from its newest finished runs; null
 * without any. Kept at two grains: the whole answer until anything of the service changes (one
 * read returning one row: runs' and steps' write versions, requests stored — a finish, a late
 * batch, a label or a delete changes it), and each run's features until that run changes (so a
 * new finish computes one run, not a thousand).
 */
export async function loadServiceHistory(db: Db, service: string, timings: HistoryTimings = {}): Promise<ServiceHistoryResponse | null> {
  let t = performance.now();
  const lap = (phase: keyof HistoryTimings) => {
    const now = performance.now();
    timings[phase] = (timings[phase] ?? 0) + now - t;
    t = now;
  };
  // Read before the runs: a write landing in between makes the next read miss, never a stale hit.
  const serviceVersion = await serviceDataVersion(db, service);
  lap('versions');
  const whole = cacheOf<ServiceHistoryResponse>(db, 'service-history', 64);
  const kept = whole.get(service, serviceVersion);
  if (kept) return kept;

  const runs = (await listRuns(db, { service, limit: MAX_HISTORY_RUNS })).filter((r) => r.status !== 'running');
  lap('runs');
  if (runs.length === 0) return null;
  const { versions, windows } = await readRunState(
    db,
    runs.map((r) => r.id),
  );
  const windowsOf = new Map<string, typeof windows>();
  for (const w of windows) {
    const list = windowsOf.get(w.run_id);
    if (list) list.push(w);
    else windowsOf.set(w.run_id, [w]);
  }
  const keys = runs.map((r) => runVersion(r, versionKey(versions.get(r.id) ?? NO_DATA, windowsOf.get(r.id) ?? [])));
  lap('versions');

  const perRun = cacheOf<RunEntry | null>(db, 'history-run', 4 * MAX_HISTORY_RUNS);
  const entries: RunEntry[] = [];
  // One at a time: the storage is shared with ingest, and a history read is not urgent.
  for (const [i, run] of runs.entries()) {
    let entry = perRun.get(run.id, keys[i]!);
    if (entry === undefined) {
      entry = await runEntry(db, run);
      perRun.set(run.id, keys[i]!, entry);
    }
    if (entry) entries.push(entry);
  }
  lap('features');
  const answer: ServiceHistoryResponse = {
    service,
    runs_read: entries.length,
    series: serviceHistory(
      entries.map((e) => e.history),
      entries.map((e) => e.features),
    ),
  };
  lap('series');
  whole.set(service, serviceVersion, answer);
  return answer;
}
