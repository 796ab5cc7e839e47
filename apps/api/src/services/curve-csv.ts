import { levelFlags } from '@kneeboard/analysis/compare';
import type { CurvePoint, RunDetail } from '@kneeboard/contracts';

const COLUMNS = [
  'level', 'requests', 'errors', 'qps', 'window_s', 'mean_ms', 'p50_ms', 'p90_ms', 'p99_ms', 'p999_ms',
  'compute_p50_ms', 'compute_p99_ms', 'queue_p50_ms', 'queue_p99_ms', 'other_p50_ms', 'in_progress',
] as const satisfies ReadonlyArray<keyof CurvePoint>;

/**
 * The precision the pages show: three significant digits or so for milliseconds and rates under
 * 100 (`0.25`, `12.4`), whole numbers above; no float noise like 12.400000000000002 in a spreadsheet.
 */
function rounded(value: number): string {
  const abs = Math.abs(value);
  if (Number.isInteger(value) || abs >= 100) return String(Math.round(value));
  return String(Number(value.toFixed(abs >= 10 ? 1 : 2)));
}

/** A text cell a spreadsheet will not run as a formula (= + - @ lead a formula), quoted for commas and quotes. */
function textCell(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV cell: numbers rounded, text safe from formulas and quoted. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return rounded(value);
  return textCell(String(value));
}

/**
 * The curve as CSV for spreadsheets: one row per level, empty cells (not zeros) for missing values,
 * and a `flag` column saying where the load generator, not the service, was the limit.
 */
export function curveCsv(detail: Pick<RunDetail, 'curve' | 'analysis' | 'run'>): string {
  const flags = levelFlags(detail.curve, detail.analysis?.littles_law ?? [], detail.run.parameter);
  const rows = detail.curve.map((p) => [...COLUMNS.map((c) => csvCell(p[c])), csvCell(flags.get(p.level) ?? null)].join(','));
  return `${[[...COLUMNS, 'flag'].join(','), ...rows].join('\n')}\n`;
}
