import { levelFlags } from '@kneeboard/analysis/compare';
import type { Capacity, CurvePoint, RunDetail } from '@kneeboard/contracts';

const COLUMNS = [
  'level', 'requests', 'errors', 'qps', 'window_s', 'mean_ms', 'p50_ms', 'p90_ms', 'p99_ms', 'p999_ms',
  'compute_p50_ms', 'compute_p99_ms', 'queue_p50_ms', 'queue_p99_ms', 'other_p50_ms', 'in_progress',
] as const satisfies ReadonlyArray<keyof CurvePoint>;

/**
 * One CSV cell. Text a spreadsheet would run as a formula (starting with = + - @, a tab or a
 * carriage return) gets a leading apostrophe (OWASP's advice); text with a comma, quote or line
 * break is quoted. Numbers go out at the precision the pages show: three significant digits or so
 * under 100 (`0.25`, `12.4`), whole numbers above — no float noise like 12.400000000000002.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return rounded(value);
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function rounded(value: number): string {
  const abs = Math.abs(value);
  if (Number.isInteger(value) || abs >= 100 || !Number.isFinite(value)) return String(Number.isFinite(value) ? Math.round(value) : value);
  return String(Number(value.toFixed(abs >= 10 ? 1 : 2)));
}

/**
 * The curve as CSV for spreadsheets: one row per level, empty cells (not zeros) for missing values,
 * and a `flag` column saying where the load generator, not the service, was the limit. With a
 * capacity (`slo=`), a `capacity` column holds each level's judgement under every SLO (holds,
 * breaks, unclear, skipped) and a `capacity_slo` column the SLOs, on the first row only.
 */
export function curveCsv(detail: Pick<RunDetail, 'curve' | 'analysis' | 'run'>, capacity?: Capacity): string {
  const flags = levelFlags(detail.curve, detail.analysis.littles_law, detail.run.parameter);
  const judged = new Map(capacity?.levels.map((l) => [l.level, l.judgement]));
  const extra = (p: CurvePoint, i: number) => (capacity ? [csvCell(judged.get(p.level) ?? null), csvCell(i === 0 ? capacity.slos.join(' ') : null)] : []);
  const rows = detail.curve.map((p, i) => [...COLUMNS.map((c) => csvCell(p[c])), csvCell(flags.get(p.level) ?? null), ...extra(p, i)].join(','));
  const header = [...COLUMNS, 'flag', ...(capacity ? ['capacity', 'capacity_slo'] : [])];
  return `${[header.join(','), ...rows].join('\n')}\n`;
}
