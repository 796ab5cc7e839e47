import type { Parsed } from './records.ts';

/** Garbage lines shown in the report; the rest are only counted. */
const EXAMPLES = 5;

export interface FileReport {
  path: string;
  sha256: string;
  bytes: number;
  /** Lines (or rows) read. */
  lines: number;
  /** Requests imported. */
  events: number;
  /** Known lines that are not requests: other k6 metrics, headers, schedule samples. */
  skipped: number;
  /** Lines that could not be read, or whose request the API could not store (out of its bounds). */
  bad: number;
  badExamples: Array<{ line: number; reason: string; text: string }>;
  /** The last line had no newline and could not be read: the tool was stopped mid-write. */
  truncated: boolean;
}

export function newFileReport(path: string, sha256: string, bytes: number): FileReport {
  return { path, sha256, bytes, lines: 0, events: 0, skipped: 0, bad: 0, badExamples: [], truncated: false };
}

export function countBad(r: FileReport, line: number, reason: string, text: string): void {
  r.bad += 1;
  if (r.badExamples.length < EXAMPLES) r.badExamples.push({ line, reason, text: text.length > 120 ? `${text.slice(0, 117)}...` : text });
}

/**
 * What the API would refuse with a 400 — and a 400 refuses the whole batch, so one poisoned line
 * would cost 50,000 good requests. Checked here, per request, with the API's bounds; null when fine.
 */
export function outOfBounds(p: Parsed, level: number): string | null {
  if (!(p.tsMs >= 946_684_800_000 && p.tsMs <= 4_102_444_800_000)) return 'time is not between 2000 and 2100';
  if (!(p.latencyMs >= 0 && p.latencyMs <= 86_400_000)) return 'latency is not between 0 and a day';
  if (!Number.isInteger(p.status) || p.status < 0 || p.status > 999) return 'status is not 0–999';
  if (Number.isNaN(level)) return 'no level known for this request: give --level';
  if (!(level > 0 && level <= 1e9)) return `level ${level} is not in (0, 1e9]`;
  return null;
}
