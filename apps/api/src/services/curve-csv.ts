import type { CurvePoint } from '@kneeboard/contracts';

const COLUMNS = [
  'level', 'requests', 'errors', 'qps', 'window_s', 'mean_ms', 'p50_ms', 'p90_ms', 'p99_ms', 'p999_ms',
  'compute_p50_ms', 'compute_p99_ms', 'queue_p50_ms', 'queue_p99_ms', 'other_p50_ms', 'in_progress',
] as const satisfies ReadonlyArray<keyof CurvePoint>;

/** The curve as CSV for spreadsheets: one row per level, empty cells (not zeros) for missing values. */
export function curveCsv(curve: CurvePoint[]): string {
  const rows = curve.map((p) => COLUMNS.map((c) => (p[c] === null || p[c] === undefined ? '' : String(p[c]))).join(','));
  return `${[COLUMNS.join(','), ...rows].join('\n')}\n`;
}
