import { HTTP_TOKEN } from './http-token.ts';

/** The two Server-Timing metrics Kneeboard plots, in ms; null when the server did not report one. */
export interface ServerTimings {
  queueMs: number | null;
  computeMs: number | null;
  /** True when some part of the header(s) could not be parsed; whatever was valid is still returned. */
  unparseable: boolean;
}

const DURATION = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads `queue` and `compute` durations from W3C Server-Timing header values, leniently: several
 * comma-separated entries, several headers, `;dur=` among other params in any order, quoted values
 * (a comma inside `desc="a, b"` does not split), names in any case. The first entry with a usable
 * `dur` wins for each name. Malformed parts set `unparseable` instead of throwing, so one odd server
 * cannot stop a sweep.
 */
export function parseServerTiming(header: string | string[] | undefined): ServerTimings {
  const out: ServerTimings = { queueMs: null, computeMs: null, unparseable: false };
  if (header === undefined) return out;
  for (const value of Array.isArray(header) ? header : [header]) {
    const entries = splitOutsideQuotes(value, ',');
    if (entries.unterminated) out.unparseable = true;
    for (const entry of entries.parts) readEntry(entry, out);
  }
  return out;
}

function readEntry(entry: string, out: ServerTimings): void {
  if (entry.trim() === '') return; // a stray comma is not worth a complaint
  const [rawName = '', ...params] = splitOutsideQuotes(entry, ';').parts;
  const name = rawName.trim().toLowerCase();
  if (!HTTP_TOKEN.test(name)) {
    out.unparseable = true;
    return;
  }
  let dur: number | null = null;
  for (const param of params) {
    const eq = param.indexOf('=');
    const key = (eq === -1 ? param : param.slice(0, eq)).trim().toLowerCase();
    if (key !== 'dur') continue;
    const raw = eq === -1 ? '' : unquote(param.slice(eq + 1).trim());
    if (!DURATION.test(raw)) {
      out.unparseable = true;
      return;
    }
    dur = Number(raw);
    break;
  }
  if (dur === null) return; // dur is optional in the spec: the metric is there, its duration is not
  if (name === 'queue' && out.queueMs === null) out.queueMs = dur;
  else if (name === 'compute' && out.computeMs === null) out.computeMs = dur;
}

/** Splits on `sep` outside double quotes. A part whose quote never closes is left out and flagged. */
function splitOutsideQuotes(s: string, sep: string): { parts: string[]; unterminated: boolean } {
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
