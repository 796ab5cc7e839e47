/**
 * The Prometheus text exposition format (version 0.0.4, what `/metrics` endpoints, node_exporter and
 * cAdvisor serve), parsed line by line. A bad line never fails the scrape: it is counted, and the
 * first few are kept with the reason, so a report can say "3 lines skipped: line 7 …".
 *
 * Grammar of a sample line (spaces or tabs between the parts):
 *   metric_name [ "{" label_name "=" `"` value `"` { "," … } [ "," ] "}" ] value [ timestamp_ms ]
 * Label values escape `\\`, `\"` and `\n`; HELP text escapes `\\` and `\n`. Values are Go floats,
 * including `NaN`, `+Inf`, `-Inf` (any case). `# HELP` and `# TYPE` lines are read; any other `#` line
 * (including OpenMetrics' `# EOF`) is a comment.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** The exposition's own timestamp (ms since the epoch), when the line carries one. */
  timestampMs?: number;
}

export interface BadLine {
  /** 1-based line number in the body. */
  line: number;
  reason: string;
  /** The line, cut to 200 characters. */
  text: string;
}

export interface Exposition {
  samples: Sample[];
  /** Declared by `# TYPE`; a name with no TYPE line is untyped. */
  types: Map<string, MetricType>;
  help: Map<string, string>;
  /** Lines that could not be read. `examples` holds the first MAX_BAD_EXAMPLES of them. */
  bad: { count: number; examples: BadLine[] };
}

export const MAX_BAD_EXAMPLES = 5;
/** A line longer than this is skipped as bad rather than buffered without end. */
export const MAX_LINE_CHARS = 64 * 1024;

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME_AT = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** Parses a whole body at once. */
export function parseExposition(body: string): Exposition {
  const parser = new ExpositionParser();
  parser.push(body);
  return parser.end();
}

/**
 * The streaming form: push chunks (bytes or text, split anywhere — inside a line, a label value or
 * a UTF-8 character), then end(). Only the unfinished last line is held between pushes.
 */
export class ExpositionParser {
  private readonly decoder = new TextDecoder('utf-8');
  private pending = '';
  /** True while skipping the rest of an over-long line. */
  private skipping = false;
  private lineNo = 0;
  private readonly out: Exposition = { samples: [], types: new Map(), help: new Map(), bad: { count: 0, examples: [] } };

  push(chunk: Uint8Array | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const piece = text.slice(start, nl);
      start = nl + 1;
      this.lineNo += 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const line = this.pending + piece;
      this.pending = '';
      if (line.length > MAX_LINE_CHARS) this.badLine(line, `line longer than ${MAX_LINE_CHARS} characters`);
      else this.line(line);
    }
    if (this.skipping) return;
    this.pending += text.slice(start);
    if (this.pending.length > MAX_LINE_CHARS) {
      this.badLine(this.pending, `line longer than ${MAX_LINE_CHARS} characters`, this.lineNo + 1);
      this.pending = '';
      this.skipping = true;
    }
  }

  end(): Exposition {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    if (!this.skipping && rest !== '') {
      this.lineNo += 1;
      this.line(rest);
    }
    return this.out;
  }

  private line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const reason = this.read(line);
    if (reason !== undefined) this.badLine(line, reason);
  }

  private badLine(text: string, reason: string, line = this.lineNo): void {
    const bad = this.out.bad;
    bad.count += 1;
    if (bad.examples.length < MAX_BAD_EXAMPLES) bad.examples.push({ line, reason, text: text.slice(0, 200) });
  }

  /** Reads one line into `out`; returns why it is bad, or undefined. */
  private read(line: string): string | undefined {
    const s = line.replace(/^[ \t]+/, '');
    if (s === '') return undefined;
    if (s.startsWith('#')) return this.comment(s);
    const parsed = parseSampleLine(s);
    if (typeof parsed === 'string') return parsed;
    this.out.samples.push(parsed);
    return undefined;
  }

  private comment(s: string): string | undefined {
    const m = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(s);
    if (!m) return undefined; // an ordinary comment
    const [, keyword, name = '', rest = ''] = m;
    if (!METRIC_NAME.test(name)) return `bad metric name in # ${keyword}`;
    if (keyword === 'HELP') {
      this.out.help.set(name, unescapeHelp(rest));
      return undefined;
    }
    const type = rest.trim() as MetricType;
    if (!TYPES.has(type)) return `unknown type "${rest.trim()}" in # TYPE`;
    this.out.types.set(name, type);
    return undefined;
  }
}

/** One sample line (leading blanks already removed) → a Sample, or the reason it is bad. */
export function parseSampleLine(s: string): Sample | string {
  const end = s.search(/[ \t{]/);
  let i = end === -1 ? s.length : end;
  const name = s.slice(0, i);
  if (!METRIC_NAME.test(name)) return 'bad metric name';
  const labels: Record<string, string> = {};
  if (s[i] === '{') {
    const end = readLabels(s, i + 1, labels);
    if (typeof end === 'string') return end;
    i = end;
  }
  // As in Prometheus' own parser, the blank between `}` and the value is optional.
  const parts = s.slice(i).trim().split(/[ \t]+/);
  if (parts.length === 1 && parts[0] === '') return 'no value';
  const value = parseGoFloat(parts[0]!);
  if (value === undefined) return `bad value "${parts[0]}"`;
  if (parts.length > 2) return 'too many fields after the value';
  const sample: Sample = { name, labels, value };
  if (parts.length === 2) {
    if (!/^-?\d+$/.test(parts[1]!)) return `bad timestamp "${parts[1]}"`;
    sample.timestampMs = Number(parts[1]);
  }
  return sample;
}

/** Reads `name="value",…}` from `i` (just after `{`); returns the index after `}` or why it is bad. */
function readLabels(s: string, i: number, labels: Record<string, string>): number | string {
  for (;;) {
    while (s[i] === ' ' || s[i] === '\t') i += 1;
    if (s[i] === '}') return i + 1;
    LABEL_NAME_AT.lastIndex = i;
    const label = LABEL_NAME_AT.exec(s)?.[0];
    if (label === undefined || /[a-zA-Z0-9_]/.test(s[i + label.length] ?? '')) return 'bad label name';
    i += label.length;
    while (s[i] === ' ' || s[i] === '\t') i += 1;
    if (s[i] !== '=') return `expected = after label ${label}`;
    i += 1;
    while (s[i] === ' ' || s[i] === '\t') i += 1;
    if (s[i] !== '"') return `expected " to open the value of label ${label}`;
    i += 1;
    // Copy the runs between escapes whole: most values have no escape at all.
    let value = '';
    for (;;) {
      const quote = s.indexOf('"', i);
      const slash = s.indexOf('\\', i);
      if (quote === -1) return `unterminated value of label ${label}`;
      if (slash === -1 || quote < slash) {
        value += s.slice(i, quote);
        i = quote + 1;
        break;
      }
      value += s.slice(i, slash);
      const e = s[slash + 1];
      if (e === '\\') value += '\\';
      else if (e === '"') value += '"';
      else if (e === 'n') value += '\n';
      else return `bad escape \\${e ?? ''} in label ${label}`;
      i = slash + 2;
    }
    if (Object.hasOwn(labels, label)) return `duplicate label ${label}`;
    labels[label] = value;
    while (s[i] === ' ' || s[i] === '\t') i += 1;
    if (s[i] === ',') i += 1;
    else if (s[i] !== '}') return 'expected , or } after a label';
  }
}

/** Go's strconv.ParseFloat, as Prometheus uses it: decimals, exponents, NaN and ±Inf in any case. */
export function parseGoFloat(t: string): number | undefined {
  const lower = t.toLowerCase();
  if (lower === 'nan') return NaN;
  if (lower === '+inf' || lower === 'inf' || lower === '+infinity' || lower === 'infinity') return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return undefined;
  return Number(t);
}

function unescapeHelp(t: string): string {
  return t.replace(/\\(\\|n)/g, (_, e: string) => (e === 'n' ? '\n' : '\\'));
}
