import { csvCell } from '@kneeboard/contracts';
import { CURVE_CSV_COLUMNS } from './curve-csv.ts';
import type { FullNameCurve } from './name-curves.ts';

/**
 * Every request name's curve as one CSV in long form — a `name` column, then the curve CSV's own
 * columns, one row per name and level — because that is what a spreadsheet filters, charts and
 * pivots (name down, level across) without reshaping; a sheet per name or a column block per name
 * would have to be stitched back together. `knee` marks each name's own knee row. Busiest name
 * first, levels in order. A run without names: the header alone.
 */
export function nameCurvesCsv(names: ReadonlyArray<FullNameCurve>): string {
  const header = ['name', ...CURVE_CSV_COLUMNS, 'knee'];
  const rows = names.flatMap((n) => n.curve.map((p) => [csvCell(n.name), ...CURVE_CSV_COLUMNS.map((c) => csvCell(p[c])), csvCell(p.level === n.knee_level ? 'knee' : null)].join(',')));
  return `${[header.join(','), ...rows].join('\n')}\n`;
}
