import { HTTP_TOKEN } from './http-token.ts';

/** The two Server-Timing metrics Kneeboard plots, in ms; null when the server did not report one. */
export interface ServerTimings {
  queueMs: number | null;
  computeMs: number | null;
  /** Entries (or header values) that could not be parsed; whatever was valid is still returned. */
  unparseable: number;
}

/**
 * Which metric names feed `compute` and `queue`, in priority order: the first name present with a
 * usable `dur` wins. Servers name things their own way (`db`, `app`, `wait`), hence the choice.
 */
export interface ServerTimingNames {
  compute: readonly string[];
  queue: readonly string[];
}

export const DEFAULT_SERVER_TIMING_NAMES: ServerTimingNames = { compute: ['compute'], queue: ['queue'] };

export type ServerTimingParser = (header: string | string[] | undefined) => ServerTimings;

// A non-negative decimal: Kneeboard's columns are durations, so a negative `dur` counts as malformed.
const DURATION = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Builds a lenient W3C Server-Timing reader for the given names: several comma-separated entries
 * and several header lines, params in any order and case, quoted values (a comma or semicolon
 * inside `desc="a, b"` splits nothing), `dur` missing (the metric is there, its time is not: null),
 * only the first `dur` of an entry used, as the spec says. Anything malformed is skipped and
 * counted — one odd server must never stop a sweep.
 */
export function createServerTimingParser(names: ServerTimingNames = DEFAULT_SERVER_TIMING_NAMES): ServerTimingParser {
  // name → [which column, priority]: lower priority wins, whatever order the server sent.
  const wanted = new Map<string, { column: 'computeMs' | 'queueMs'; rank: number }>();
  names.compute.forEach((n, rank) => wanted.set(n.toLowerCase(), { column: 'computeMs', rank }));
  names.queue.forEach((n, rank) => wanted.set(n.toLowerCase(), { column: 'queueMs', rank }));

  return (header) => {
    const out: ServerTimings = { queueMs: null, computeMs: null, unparseable: 0 };
    if (header === undefined) return out;
    const rank = { computeMs: Infinity, queueMs: Infinity };
    for (const value of Array.isArray(header) ? header : [header]) {
      const entries = splitOutsideQuotes(value, ',');
      if (entries.unterminated) out.unparseable += 1;
      for (const entry of entries.parts) {
        const metric = readEntry(entry);
        if (metric === 'skip') continue;
        if (metric === 'bad') {
          out.unparseable += 1;
          continue;
        }
        const target = wanted.get(metric.name);
        if (target === undefined || metric.dur === null || target.rank >= rank[target.column]) continue;
        out[target.column] = metric.dur;
        rank[target.column] = target.rank;
      }
    }
    return out;
  };
}

const defaultParser = createServerTimingParser();

/** Reads `queue` and `compute` (or the given names) from Server-Timing header values. */
export function parseServerTiming(header: string | string[] | undefined, names?: ServerTimingNames): ServerTimings {
  return names === undefined ? defaultParser(header) : createServerTimingParser(names)(header);
}

function readEntry(entry: string): { name: string; dur: number | null } | 'skip' | 'bad' {
  if (entry.trim() === '') return 'skip'; // a stray comma is not worth a complaint
  const [rawName = '', ...params] = splitOutsideQuotes(entry, ';').parts;
  const name = rawName.trim().toLowerCase();
  if (!HTTP_TOKEN.test(name)) return 'bad';
  for (const param of params) {
    const eq = param.indexOf('=');
    const key = (eq === -1 ? param : param.slice(0, eq)).trim().toLowerCase();
    if (key !== 'dur') continue;
    const raw = eq === -1 ? '' : unquote(param.slice(eq + 1).trim());
    return DURATION.test(raw) ? { name, dur: Number(raw) } : 'bad';
  }
  return { name, dur: null };
}

/** Splits on `sep` outside double quotes. A part whose quote never closes is left out and flagged. */
function splitOutsideQuotes(s: string, sep: string): { parts: string[]; unterminated: boolean } {
  // The common header has no quotes: a plain split, on the per-response hot path.
  if (!s.includes('"')) return { parts: s.split(sep), unterminated: false };
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted && ch === '\\' && i + 1 < s.length) {
      current += ch + s[i + 1];
      i += 1;
    } else if (ch === '"') {
      quoted = !quoted;
      current += ch;
    } else if (ch === sep && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  if (!quoted) parts.push(current);
  return { parts, unterminated: quoted };
}

function unquote(v: string): string {
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return v.slice(1, -1).replace(/\\(.)/g, '$1');
  return v;
}
