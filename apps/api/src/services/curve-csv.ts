import type { CurvePoint } from '@kneeboard/contracts';

const COLUMNS = [
  'level', 'requests', 'errors', 'qps', 'window_s', 'mean_ms', 'p50_ms', 'p90_ms', 'p99_ms', 'p999_ms',
  'compute_p50_ms', 'compute_p99_ms', 'queue_p50_ms', 'queue_p99_ms', 'other_p50_ms', 'in_progress',
] as const satisfies ReadonlyArray<keyof CurvePoint>;

/**
 * One CSV cell. Text a spreadsheet would run as a formula (starting with = + - @, a tab or a
 * carriage return) gets a leading apostrophe (OWASP's advice); text with a comma, quote or line
 * break is quoted. Numbers go out as they are: a negative number is not a formula.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The curve as CSV for spreadsheets: one row per level, empty cells (not zeros) for missing values. */
export function curveCsv(curve: CurvePoint[]): string {
  const rows = curve.map((p) => COLUMNS.map((c) => csvCell(p[c])).join(','));
  return `${[COLUMNS.join(','), ...rows].join('\n')}\n`;
}
