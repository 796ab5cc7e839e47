import { formatCsvNumber } from './figures.ts';

/**
 * One CSV cell, for every CSV the product writes (the API's curve.csv rule, shared so the
 * dashboard's own downloads follow it too). Text a spreadsheet would run as a formula (starting
 * with = + - @, a tab or a carriage return) gets a leading apostrophe (OWASP's advice); text with a
 * comma, quote or line break is quoted. Numbers go out at the precision the pages show: three
 * significant digits or so under 100 (`0.25`, `12.4`), whole numbers above.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return formatCsvNumber(value);
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows of cells as CSV text (CRLF, as RFC 4180 has it), a header first. */
export function csvText(rows: ReadonlyArray<ReadonlyArray<string | number | boolean | null | undefined>>): string {
  return rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}
