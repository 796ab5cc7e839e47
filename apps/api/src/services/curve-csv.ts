import { levelFlags } from '@kneeboard/analysis/compare';
import { csvCell, type Capacity, type CurvePoint, type LevelCost, type RunCost, type RunDetail, type StepConnections } from '@kneeboard/contracts';

/** A curve point's columns, in the order the curve CSV and the per-name CSV print them. */
export const CURVE_CSV_COLUMNS = [
  'level', 'requests', 'errors', 'qps', 'window_s', 'mean_ms', 'p50_ms', 'p90_ms', 'p99_ms', 'p999_ms',
  'compute_p50_ms', 'compute_p99_ms', 'queue_p50_ms', 'queue_p99_ms', 'other_p50_ms', 'in_progress',
] as const satisfies ReadonlyArray<keyof CurvePoint>;

/** What each level cost the server (issue 28), added only for a run with server metrics, so other runs' files are unchanged. */
const COST_COLUMNS = ['cores_used', 'cores_available', 'peak_memory_bytes', 'qps_per_core', 'cpu_seconds_per_1k', 'efficiency_per_core'] as const satisfies ReadonlyArray<keyof LevelCost>;

/** The connections each step opened and their TLS handshakes, added only for a run whose agent reported them. */
const CONNECTION_COLUMNS = [
  ['connections_opened', 'opened'],
  ['handshake_p50_ms', 'handshake_p50_ms'],
  ['handshake_p99_ms', 'handshake_p99_ms'],
  ['handshake_max_ms', 'handshake_max_ms'],
] as const satisfies ReadonlyArray<readonly [string, keyof StepConnections]>;

/**
 * The curve as CSV for spreadsheets: one row per level, empty cells (not zeros) for missing values,
 * and a `flag` column saying where the load generator, not the service, was the limit. With a
 * capacity (`slo=`), a `capacity` column holds each level's judgement under every SLO (holds,
 * breaks, unclear, skipped) and a `capacity_slo` column the SLOs, on the first row only.
 */
export function curveCsv(detail: Pick<RunDetail, 'curve' | 'analysis' | 'run'> & Partial<Pick<RunDetail, 'steps'>>, capacity?: Capacity, cost?: RunCost): string {
  const flags = levelFlags(detail.curve, detail.analysis.littles_law, detail.run.parameter);
  const judged = new Map(capacity?.levels.map((l) => [l.level, l.judgement]));
  const extra = (p: CurvePoint, i: number) => (capacity ? [csvCell(judged.get(p.level) ?? null), csvCell(i === 0 ? capacity.slos.join(' ') : null)] : []);
  const costs = cost && cost.levels.length > 0 ? new Map(cost.levels.map((l) => [l.level, l])) : null;
  const costCells = (p: CurvePoint) => (costs ? COST_COLUMNS.map((c) => csvCell(costs.get(p.level)?.[c] ?? null)) : []);
  const connections = new Map((detail.steps ?? []).flatMap((s) => (s.connections ? [[s.level, s.connections] as const] : [])));
  const connectionCells = (p: CurvePoint) => (connections.size > 0 ? CONNECTION_COLUMNS.map(([, c]) => csvCell(connections.get(p.level)?.[c] ?? null)) : []);
  const rows = detail.curve.map((p, i) => [...CURVE_CSV_COLUMNS.map((c) => csvCell(p[c])), csvCell(flags.get(p.level) ?? null), ...extra(p, i), ...costCells(p), ...connectionCells(p)].join(','));
  const header = [...CURVE_CSV_COLUMNS, 'flag', ...(capacity ? ['capacity', 'capacity_slo'] : []), ...(costs ? COST_COLUMNS : []), ...(connections.size > 0 ? CONNECTION_COLUMNS.map(([h]) => h) : [])];
  return `${[header.join(','), ...rows].join('\n')}\n`;
}
