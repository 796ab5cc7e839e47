/**
 * Service-level objectives as data: the one reader and writer of the SLO syntax, shared by the
 * CLI's `--slo`, the API's `slo=` query parameter, the web app's URL state and the Markdown.
 * Plain TypeScript with no zod (like figures.ts), so the analysis package can call it at runtime
 * and stay free of zod; the zod parameter that wraps it is `SloParam` in capacity.ts.
 *
 *   `p99<=50ms`       a latency percentile (p50, p90, p99, p99.9) of successful requests
 *   `compute_p99<=40ms`, `queue_p50<=5ms`  the Server-Timing parts (compute/queue, p50 and p99)
 *   `errors<=1%`      the share of requests that failed
 *   `p99<=50ms,errors<=1%`  several at once: every clause must hold
 *
 * Units are required, so `p99<=50` (seconds? milliseconds?) is refused rather than guessed:
 * latencies take `ms`, `s` or `us` (`µs`), and are kept in milliseconds; errors take `%`. Only an
 * upper bound (`<=`, or `≤`) is an SLO. A latency threshold is above 0 (`p99<=0ms` can never hold)
 * and at most a day; an error share is 0–100% (`errors<=0%` means no failed request at all). Each
 * metric appears once, and a list has at most MAX_SLO_CLAUSES clauses. Every refusal names the
 * clause it refuses, as typed.
 */

/** Percentiles of the whole latency, as the curve carries them. */
export const SLO_LATENCY_METRICS = ['p50', 'p90', 'p99', 'p99.9', 'compute_p50', 'compute_p99', 'queue_p50', 'queue_p99'] as const;
export type SloLatencyMetric = (typeof SLO_LATENCY_METRICS)[number];
export type SloMetric = SloLatencyMetric | 'errors';
export const SLO_METRICS: readonly SloMetric[] = [...SLO_LATENCY_METRICS, 'errors'];

/** A latency clause's threshold is in milliseconds, an error clause's in percent (0–100): units in names. */
export type SloClause = { metric: SloLatencyMetric; max_ms: number } | { metric: 'errors'; max_percent: number };

/** More clauses than metrics would only be repeats; 8 leaves room for every useful combination. */
export const MAX_SLO_CLAUSES = 8;
/** A day, as the longest latency the API stores (MAX_DURATION_MS in common.ts). */
const MAX_SLO_MS = 86_400_000;
/** Longer than any honest list of MAX_SLO_CLAUSES clauses; bounds the work a hostile URL causes. */
export const MAX_SLO_TEXT = 400;

export const SLO_HINT = 'clauses such as p99<=50ms or errors<=1% (p50, p90, p99, p99.9, compute_p50, compute_p99, queue_p50, queue_p99 in ms, s or us; errors in %), comma-separated';

/** The curve field a latency metric is read from, and the quantile it is. */
export const SLO_LATENCY_FIELDS: Readonly<Record<SloLatencyMetric, { field: 'p50_ms' | 'p90_ms' | 'p99_ms' | 'p999_ms' | 'compute_p50_ms' | 'compute_p99_ms' | 'queue_p50_ms' | 'queue_p99_ms'; quantile: number }>> = {
  p50: { field: 'p50_ms', quantile: 0.5 },
  p90: { field: 'p90_ms', quantile: 0.9 },
  p99: { field: 'p99_ms', quantile: 0.99 },
  'p99.9': { field: 'p999_ms', quantile: 0.999 },
  compute_p50: { field: 'compute_p50_ms', quantile: 0.5 },
  compute_p99: { field: 'compute_p99_ms', quantile: 0.99 },
  queue_p50: { field: 'queue_p50_ms', quantile: 0.5 },
  queue_p99: { field: 'queue_p99_ms', quantile: 0.99 },
};

/** Spellings accepted for a metric beyond its canonical name. */
const ALIASES: Readonly<Record<string, SloMetric>> = { p999: 'p99.9', error: 'errors', error_rate: 'errors' };

const LATENCY_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, us: 0.001, 'µs': 0.001, 'μs': 0.001 };

export type SloParseResult = { ok: true; clauses: SloClause[] } | { ok: false; error: string; clause: string };

const fail = (clause: string, why: string): SloParseResult => ({ ok: false, clause, error: `SLO clause "${clause}": ${why}` });

/** One clause, e.g. `p99 <= 50ms` (whitespace anywhere between the parts). */
function parseClause(raw: string): { ok: true; clause: SloClause } | { ok: false; error: string } {
  const text = raw.trim();
  const bad = (why: string) => ({ ok: false as const, error: `SLO clause "${text}": ${why}` });
  if (text === '') return bad(`is empty: ${SLO_HINT}`);
  const head = /^([A-Za-z_][A-Za-z0-9_.]*)\s*/.exec(text);
  if (!head) return bad(`does not start with a metric: ${SLO_HINT}`);
  const name = (head[1] as string).toLowerCase();
  const metric = (SLO_METRICS as readonly string[]).includes(name) ? (name as SloMetric) : ALIASES[name];
  if (!metric) return bad(`unknown metric "${head[1]}": use one of ${SLO_METRICS.join(', ')}`);
  const rest = text.slice(head[0].length);
  const op = /^(<=|≤|=<|<|>=|≥|>|==|=)\s*/.exec(rest);
  if (!op || (op[1] !== '<=' && op[1] !== '≤')) return bad('an SLO is an upper bound: write <= (e.g. p99<=50ms)');
  const valueText = rest.slice(op[0].length);
  const value = /^([+-]?(?:\d+(?:\.\d+)?|\.\d+))\s*([^\s\d.+-].*)?$/.exec(valueText);
  if (!value) return bad(`"${valueText}" is not a number with a unit`);
  const number = Number(value[1]);
  const unit = (value[2] ?? '').trim();
  if (number < 0) return bad('the threshold must not be negative');
  if (metric === 'errors') {
    if (unit !== '%') return bad(unit === '' ? 'needs a unit: errors are a share of requests, in % (e.g. errors<=1%)' : `errors are in %, not "${unit}"`);
    if (number > 100) return bad('an error share is at most 100%');
    return { ok: true, clause: { metric, max_percent: number } };
  }
  if (unit === '') return bad('needs a unit: ms, s or us (e.g. p99<=50ms)');
  const scale = LATENCY_UNITS[unit.toLowerCase()] ?? LATENCY_UNITS[unit];
  if (scale === undefined) return bad(`unknown unit "${unit}": latencies are in ms, s or us`);
  const ms = number * scale;
  if (ms <= 0) return bad('a latency threshold must be above 0 (nothing is that fast)');
  if (ms > MAX_SLO_MS) return bad('a latency threshold is at most a day');
  return { ok: true, clause: { metric, max_ms: ms } };
}

/**
 * SLO texts into clauses: each text may hold several clauses separated by commas (URL state
 * writes one `slo=` that way; the CLI repeats `--slo`). Refuses the whole list, naming the first
 * clause it cannot read, a metric given twice, or more than MAX_SLO_CLAUSES clauses.
 */
export function parseSlos(texts: string | readonly string[]): SloParseResult {
  const list = typeof texts === 'string' ? [texts] : texts;
  const total = list.reduce((n, t) => n + t.length, 0);
  if (total > MAX_SLO_TEXT) return fail(`${list.join(',').slice(0, 40)}…`, `the SLO text is longer than ${MAX_SLO_TEXT} characters`);
  const parts = list.flatMap((t) => t.split(','));
  if (parts.length > MAX_SLO_CLAUSES) {
    return fail((parts[MAX_SLO_CLAUSES] as string).trim(), `too many clauses (${parts.length}): at most ${MAX_SLO_CLAUSES}, and this is clause ${MAX_SLO_CLAUSES + 1}`);
  }
  const clauses: SloClause[] = [];
  for (const part of parts) {
    const parsed = parseClause(part);
    if (!parsed.ok) return { ok: false, clause: part.trim(), error: parsed.error };
    if (clauses.some((c) => c.metric === parsed.clause.metric)) return fail(part.trim(), `${parsed.clause.metric} is given twice: keep one threshold per metric`);
    clauses.push(parsed.clause);
  }
  if (clauses.length === 0) return fail('', `no clause: ${SLO_HINT}`);
  return { ok: true, clauses };
}

/** A threshold without float noise: 0.1 + 0.2 ms reads 0.3. */
const plain = (x: number) => String(Number(x.toPrecision(12)));

/** The canonical text of one clause: `p99<=50ms`, `errors<=0.5%`. Parsing it gives the clause back. */
export function formatSlo(clause: SloClause): string {
  return clause.metric === 'errors' ? `errors<=${plain(clause.max_percent)}%` : `${clause.metric}<=${plain(clause.max_ms)}ms`;
}

/** The canonical text of a list, comma-separated, as `slo=` in a URL keeps it. */
export function formatSlos(clauses: readonly SloClause[]): string {
  return clauses.map(formatSlo).join(',');
}

/** The clause for people: `p99 ≤ 50 ms`, `errors ≤ 1%`. */
export function describeSlo(clause: SloClause): string {
  return clause.metric === 'errors' ? `errors ≤ ${plain(clause.max_percent)}%` : `${clause.metric} ≤ ${plain(clause.max_ms)} ms`;
}
