import type { LevelSummary } from '../sweep/level-stats.ts';

interface Column {
  title: string;
  width: number;
  cell: (s: LevelSummary) => string;
}

/** A latency in a width that keeps three significant digits: 0.85 ms, 20.3 ms, 157 ms. */
export function formatMs(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(0)} ms`;
}

export function formatQps(qps: number): string {
  return qps < 100 ? qps.toFixed(1) : qps.toFixed(0);
}

const COLUMNS: Column[] = [
  { title: 'level', width: 5, cell: (s) => String(s.level) },
  { title: 'QPS', width: 8, cell: (s) => (s.window_s > 0 ? formatQps(s.qps) : '—') },
  { title: 'p50', width: 9, cell: (s) => formatMs(s.p50_ms) },
  { title: 'p99', width: 9, cell: (s) => formatMs(s.p99_ms) },
  { title: 'compute p50', width: 11, cell: (s) => formatMs(s.compute_p50_ms) },
  { title: 'queue p50', width: 9, cell: (s) => formatMs(s.queue_p50_ms) },
  { title: 'errors', width: 6, cell: (s) => String(s.errors) },
  { title: 'in-flight', width: 9, cell: (s) => (s.in_flight === null ? '—' : s.in_flight.toFixed(1)) },
];

/** Header and rule of the live table: Markdown, like the hand-made tables in write-ups, so it can be pasted. */
export function tableHeader(): string {
  const titles = COLUMNS.map((c) => c.title.padStart(c.width));
  const rule = COLUMNS.map((c) => `${'-'.repeat(c.width)}:`);
  return `| ${titles.join(' | ')} |\n|${rule.map((r) => `-${r}`).join('|')}|`;
}

/** One row, printed as soon as its level ends; fixed widths keep rows aligned without knowing the rest. */
export function tableRow(s: LevelSummary): string {
  const row = `| ${COLUMNS.map((c) => c.cell(s).padStart(c.width)).join(' | ')} |`;
  return s.aborted ? `${row} (stopped early)` : row;
}

/** Notes under a row: error causes, unparseable Server-Timing, and a generator that could not keep up. */
export function rowNotes(s: LevelSummary): string[] {
  const notes: string[] = [];
  const kinds = Object.entries(s.error_kinds).sort((a, b) => b[1] - a[1]);
  if (kinds.length > 0) notes.push(`level ${s.level}: errors ${kinds.map(([k, n]) => `${n} × ${k}`).join(', ')}`);
  if (s.unparseable_timings > 0) notes.push(`level ${s.level}: ${s.unparseable_timings} responses had a Server-Timing header that could not be parsed`);
  if (!s.aborted && s.in_flight !== null && s.in_flight < 0.9 * s.level) {
    notes.push(
      `level ${s.level}: only ${s.in_flight.toFixed(1)} requests in flight on average (throughput × mean latency): ` +
        'the agent lost time between requests, so it — not the target — limited the load',
    );
  }
  return notes;
}
