import { formatCores, formatInFlight, formatLevel, formatMs, formatQps } from '@kneeboard/contracts/figures';
import type { LevelSummary } from '../load/level-stats.ts';

interface Column {
  title: string;
  width: number;
  cell: (s: LevelSummary) => string;
}

/** A latency with its unit, `0.85 ms`, `20.3 ms`, `1,778 ms`: the number is the shared figure the web and the Markdown print. */
export function msWithUnit(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : `${formatMs(ms)} ms`;
}

/** CPU cores the agent used, two decimals. */
const cores = formatCores;

const LATENCY: Column[] = [
  { title: 'p50', width: 9, cell: (s) => msWithUnit(s.p50_ms) },
  { title: 'p99', width: 9, cell: (s) => msWithUnit(s.p99_ms) },
  { title: 'p99.9', width: 9, cell: (s) => msWithUnit(s.p999_ms) },
  { title: 'compute p50', width: 11, cell: (s) => msWithUnit(s.compute_p50_ms) },
  { title: 'queue p50', width: 9, cell: (s) => msWithUnit(s.queue_p50_ms) },
  { title: 'errors', width: 6, cell: (s) => String(s.errors) },
  // Counted on the wire, time-weighted: what the target really saw.
  { title: 'in-flight', width: 9, cell: (s) => formatInFlight(s.health.in_flight_mean) },
];
const AGENT: Column[] = [
  { title: 'agent cpu', width: 9, cell: (s) => cores(s.health.agent_cpu_cores) },
  { title: 'loop p99', width: 9, cell: (s) => msWithUnit(s.health.event_loop_delay_p99_ms) },
  { title: 'limited', width: 7, cell: (s) => (s.health.generator_limited ? 'YES' : 'no') },
];

/** Closed loop: the level and Little's law beside the direct count. Open loop: offered, achieved and sent rates, late and missed sends. */
export function columnsFor(loadModel: 'closed' | 'open', parameter: string): Column[] {
  const level: Column = { title: parameter, width: Math.max(6, parameter.length), cell: (s) => formatLevel(s.level) };
  const qps = (title: string): Column => ({ title, width: 8, cell: (s) => (s.window_s > 0 ? formatQps(s.qps) : '—') });
  if (loadModel === 'closed') {
    return [level, qps('QPS'), ...LATENCY, { title: 'Little', width: 7, cell: (s) => formatInFlight(s.in_flight) }, ...AGENT];
  }
  return [
    level,
    qps('achieved'),
    { title: 'sent/s', width: 8, cell: (s) => (s.sent_per_s === null ? '—' : formatQps(s.sent_per_s)) },
    ...LATENCY,
    { title: 'late', width: 6, cell: (s) => String(s.health.late_sends) },
    { title: 'missed', width: 6, cell: (s) => String(s.health.missed_sends) },
    ...AGENT,
  ];
}

/** Header and rule of the live table: Markdown, like the hand-made tables in write-ups, so it can be pasted. */
export function tableHeader(columns: Column[]): string {
  const titles = columns.map((c) => c.title.padStart(c.width));
  const rule = columns.map((c) => `${'-'.repeat(c.width)}:`);
  return `| ${titles.join(' | ')} |\n|${rule.map((r) => `-${r}`).join('|')}|`;
}

/** One row, printed as soon as its level ends; fixed widths keep rows aligned without knowing the rest. */
export function tableRow(columns: Column[], s: LevelSummary): string {
  const row = `| ${columns.map((c) => c.cell(s).padStart(c.width)).join(' | ')} |`;
  return s.aborted ? `${row} (stopped early)` : row;
}

/** Notes under a row: why the agent flagged itself, error causes, unparseable Server-Timing. */
export function rowNotes(s: LevelSummary): string[] {
  const notes: string[] = [];
  if (s.health.generator_limited) notes.push(`level ${s.level}: GENERATOR-LIMITED — ${s.health.reason} These numbers are the agent's ceiling, not the target's.`);
  const kinds = Object.entries(s.error_kinds).sort((a, b) => b[1] - a[1]);
  if (kinds.length > 0) notes.push(`level ${s.level}: errors ${kinds.map(([k, n]) => `${n} × ${k}`).join(', ')}`);
  if (s.error_kinds.EMFILE) notes.push(`level ${s.level}: EMFILE means too many open files: raise the limit (ulimit -n) for the agent`);
  const tls = s.tls_handshakes;
  if (tls !== undefined && tls.count > 0) {
    notes.push(`level ${s.level}: ${tls.count} TLS handshake${tls.count === 1 ? '' : 's'} (p50 ${msWithUnit(tls.p50_ms)}, max ${msWithUnit(tls.max_ms)})`);
  }
  // `--requests`: one line per name, so a slow endpoint does not hide inside the level's total.
  for (const n of s.by_name ?? []) {
    notes.push(`${n.name}: ${formatQps(n.qps)} req/s, p50 ${msWithUnit(n.p50_ms)}, p99 ${msWithUnit(n.p99_ms)}${n.errors > 0 ? `, ${n.errors} errors` : ''}`);
  }
  if (s.unparseable_timings > 0) notes.push(`level ${s.level}: ${s.unparseable_timings} responses had Server-Timing parts that could not be parsed (skipped)`);
  return notes;
}
