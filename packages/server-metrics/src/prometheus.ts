/**
 * The fourth way to read what the server spent (issue 28): a Prometheus-compatible server's HTTP
 * API. Each `name=expr` PromQL query is evaluated with `query_range` over a step's window at one
 * value a second; the values become the same per-second points the other sources post, and the
 * seconds it has no value for become the same named gaps (measureWindow's gap rule), with the
 * Prometheus error or "no series" as the reason. Never throws for a bad source: every failure is a
 * reason. No clock of its own, no dependencies (Node's fetch).
 */
import type { SelectorFn } from './selector.ts';
import { SelectorError } from './selector.ts';
import { describeGap, describeReset, evaluateSelector, type Scrape } from './window.ts';

export interface PromQuery {
  /** What the values are stored as: `cpu` (cores used), `mem` (bytes) or any other name. */
  alias: string;
  expr: string;
  /** How a value reads: `rate` when the expression is a per-second rate (rate/irate/deriv) or a counter, else a gauge (`max` for mem). */
  fn: SelectorFn;
  /**
   * `rate(EXPR)` with no `[range]` (not PromQL: rate needs one): EXPR is a counter that Kneeboard
   * turns into per-second values itself — each second's value is the counter's increase from the
   * second before, so a level's values add up to exactly what it counted, whatever the scrape
   * interval and however irregular the scrapes (a missed scrape moves its increase to the next second).
   */
  counter: boolean;
  /** `alias=expr` as given, for messages. */
  source: string;
}

/**
 * The defaults: the CPU and resident memory every Prometheus client library exports, summed over
 * every target the server scrapes except itself. The CPU counter is read as a counter (`rate(…)`
 * without a range, see PromQuery.counter): its per-second increases add up to the exact CPU spent
 * in the window at any scrape interval. Name the job (`--promql 'cpu=sum(irate(process_cpu_seconds_total{job="search"}[1m]))'`)
 * where Prometheus scrapes more than the target.
 */
export const DEFAULT_PROMQL_TEXTS = ['cpu=rate(sum(process_cpu_seconds_total{job!="prometheus"}))', 'mem=sum(process_resident_memory_bytes{job!="prometheus"})'] as const;

/** The longest query accepted (Prometheus takes more; a longer one is a mistake). */
export const MAX_PROMQL_CHARS = 2_000;
/** Values a second per query_range call: Prometheus refuses more than 11,000 points per series. */
const MAX_RANGE_SECONDS = 10_000;
/** The most of an answer read: a query without aggregation over a large cluster can be huge. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
export const PROMETHEUS_TIMEOUT_MS = 10_000;

const ALIAS = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const PAIRS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

/** Parses `alias=expr`; throws SelectorError naming what is wrong (Prometheus judges the PromQL itself). */
export function parsePromQuery(text: string): PromQuery {
  const at = text.indexOf('=');
  const alias = text.slice(0, Math.max(at, 0)).trim();
  const expr = text.slice(at + 1).trim();
  if (at <= 0 || !ALIAS.test(alias)) throw new SelectorError(`query "${text.slice(0, 80)}": expected name=PromQL, e.g. cpu=sum(rate(process_cpu_seconds_total[15s]))`);
  if (expr === '') throw new SelectorError(`query "${text.slice(0, 80)}": the PromQL after ${alias}= is empty`);
  if (expr.length > MAX_PROMQL_CHARS) throw new SelectorError(`query ${alias}: longer than ${MAX_PROMQL_CHARS} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(expr)) throw new SelectorError(`query ${alias}: a control character (a newline?) in the PromQL`);
  const unbalanced = bracketProblem(expr);
  if (unbalanced) throw new SelectorError(`query ${alias}: ${unbalanced}`);
  const counter = counterInner(expr);
  const fn: SelectorFn = counter !== null || /\b(i?rate|deriv)\s*\(/.test(expr) ? 'rate' : alias === 'mem' ? 'max' : 'mean';
  return { alias, expr: counter ?? expr, fn, counter: counter !== null, source: `${alias}=${expr}` };
}

/** `rate(EXPR)` whose outermost call spans the whole query and has no `[range]` at its top level → EXPR; else null. */
function counterInner(expr: string): string | null {
  const m = /^rate\s*\((.*)\)$/s.exec(expr);
  if (!m || bracketProblem(m[1]!) !== null) return null;
  // rate(x[5m]) is PromQL's own: a range selector directly inside (outside any nested call) keeps it PromQL.
  let depth = 0;
  for (const c of m[1]!) {
    if (c === '(' || c === '{') depth++;
    else if (c === ')' || c === '}') depth--;
    else if (c === '[' && depth === 0) return null;
  }
  return m[1]!.trim();
}

/** The defaults, with any given query of a default's name replacing it; names must be unique. */
export function parsePromQueries(texts: readonly string[] = []): PromQuery[] {
  const given = texts.map(parsePromQuery);
  const seen = new Set<string>();
  for (const q of given) {
    if (seen.has(q.alias)) throw new SelectorError(`query "${q.source.slice(0, 80)}": name "${q.alias}" is used twice`);
    seen.add(q.alias);
  }
  return [...DEFAULT_PROMQL_TEXTS.map(parsePromQuery).filter((d) => !seen.has(d.alias)), ...given];
}

/** Brackets outside string literals must pair up: a cut-off query is told here, not by a 400 later. */
function bracketProblem(expr: string): string | null {
  const stack: string[] = [];
  let quote: string | null = null;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (quote !== null) {
      if (c === '\\' && quote !== '`') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{') stack.push(c);
    else if (c in PAIRS && stack.pop() !== PAIRS[c]) return `unbalanced "${c}" at character ${i + 1}`;
  }
  if (quote !== null) return `unterminated string (${quote})`;
  return stack.length > 0 ? `unclosed "${stack.at(-1)}"` : null;
}

/** Where the Prometheus HTTP API lives under the given base (`http://prom:9090`, or one with a path prefix). */
export function prometheusApiUrl(base: string, path: 'query' | 'query_range', params: Record<string, string>): string {
  const url = new URL(`${base.replace(/\/+$/, '')}/api/v1/${path}`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

/** A query's answer: per epoch second, the sum over the series it returned; or why there is none. */
export type RangeAnswer = { values: Map<number, number>; series: number } | { error: string; kind: PromFailure };
/** `unreachable`: no answer (network, timeout); `bad_query`: Prometheus could not parse it; `error`: any other refusal. */
export type PromFailure = 'unreachable' | 'bad_query' | 'error';

interface PromBody {
  status?: string;
  errorType?: string;
  error?: string;
  data?: { resultType?: string; result?: unknown };
}

/** One GET of the HTTP API, parsed; every failure is a reason, never a throw. Redirects are refused (see the API's allow-list). */
async function getProm(url: string, timeoutMs: number): Promise<{ body: PromBody } | { error: string; kind: PromFailure }> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error', headers: { accept: 'application/json' } });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (cause?.code ?? cause?.message ?? (err as Error).message);
    return { error: why, kind: 'unreachable' };
  }
  const text = await readCapped(res);
  if (text === null) return { error: `an answer over ${MAX_ANSWER_BYTES} bytes (aggregate the query, e.g. sum(…))`, kind: 'error' };
  let body: PromBody | null = null;
  try {
    body = JSON.parse(text) as PromBody;
  } catch {
    body = null;
  }
  if (body?.status === 'error' || !res.ok) {
    const detail = body?.error ? `Prometheus ${body.errorType ?? 'error'}: ${body.error}` : `HTTP ${res.status}`;
    return { error: detail.slice(0, 200), kind: body?.errorType === 'bad_data' ? 'bad_query' : 'error' };
  }
  if (body === null || body.status !== 'success') return { error: 'not a Prometheus API answer', kind: 'error' };
  return { body };
}

async function readCapped(res: Response): Promise<string | null> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await res.body.cancel().catch(() => {});
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Asks the server to evaluate each query once (at `atS`, epoch seconds): null when it answered,
 * else why not. A `bad_query` is the caller's mistake (a flag or a field to name); `unreachable`
 * means every step would fail alike.
 */
export async function checkPromQuery(base: string, q: PromQuery, atS: number, timeoutMs = PROMETHEUS_TIMEOUT_MS): Promise<{ error: string; kind: PromFailure } | null> {
  const got = await getProm(prometheusApiUrl(base, 'query', { query: q.expr, time: String(atS) }), timeoutMs);
  return 'error' in got ? got : null;
}

/** `query_range` from `startS` to `endS` (epoch seconds, inclusive) at one value a second, in parts of at most MAX_RANGE_SECONDS. */
export async function queryRange(base: string, expr: string, startS: number, endS: number, timeoutMs = PROMETHEUS_TIMEOUT_MS): Promise<RangeAnswer> {
  const values = new Map<number, number>();
  let series = 0;
  for (let from = startS; from <= endS; from += MAX_RANGE_SECONDS) {
    const to = Math.min(endS, from + MAX_RANGE_SECONDS - 1);
    const got = await getProm(prometheusApiUrl(base, 'query_range', { query: expr, start: String(from), end: String(to), step: '1' }), timeoutMs);
    if ('error' in got) return got;
    const result = got.body.data?.result;
    if (!Array.isArray(result)) return { error: 'not a Prometheus API answer (no result)', kind: 'error' };
    series = Math.max(series, result.length);
    // Several series (an unaggregated query): summed per second, as the text sources sum matching series.
    for (const s of result as Array<{ values?: unknown }>) {
      if (!Array.isArray(s.values)) continue;
      for (const pair of s.values as unknown[]) {
        if (!Array.isArray(pair) || pair.length < 2) continue;
        const second = Math.round(Number(pair[0]));
        const v = Number(pair[1]);
        if (!Number.isFinite(second) || !Number.isFinite(v)) continue;
        values.set(second, (values.get(second) ?? 0) + v);
      }
    }
  }
  return { values, series };
}

/** A step's window, epoch ms: from its start (warm-up included); gaps are named over the measured part. */
export interface PromStepWindow {
  startedAt: number;
  measureFrom: number;
  endedAt: number;
}

export interface PromStepPoint {
  metric: string;
  fn: SelectorFn;
  second: number;
  value: number;
}

/**
 * Every query over one step: per-second points from the step's first to its last second, and the
 * gaps in the measured window as notes ("cpu: no samples between 12:00:03 and 12:00:05 (HTTP 503)").
 * `failed`: a reason that stands for every query (the server is unreachable): no request is made.
 */
export async function readPrometheusStep(base: string, queries: readonly PromQuery[], step: PromStepWindow, options: { timeoutMs?: number; failed?: string } = {}): Promise<{ points: PromStepPoint[]; notes: string[] }> {
  const points: PromStepPoint[] = [];
  const notes: string[] = [];
  const window = { startMs: step.measureFrom, endMs: step.endedAt };
  for (const q of queries) {
    // A counter needs the second before the first for its first increase.
    const first = Math.floor(step.startedAt / 1000) - (q.counter ? 1 : 0);
    const answer: RangeAnswer = options.failed !== undefined ? { error: options.failed, kind: 'unreachable' } : await queryRange(base, q.expr, first, Math.floor(step.endedAt / 1000), options.timeoutMs);
    // The values as scrapes of a one-series metric named by the alias, so the gap rule is the other sources' own.
    const scrapes: Scrape[] = [];
    if ('error' in answer) scrapes.push({ atMs: step.measureFrom, error: answer.error });
    else {
      if (answer.values.size === 0) scrapes.push({ atMs: step.measureFrom, error: 'Prometheus returned no series' });
      for (const [second, value] of q.counter ? increases(answer.values, q.alias, notes) : [...answer.values].sort((a, b) => a[0] - b[0])) {
        points.push({ metric: q.alias, fn: q.fn, second, value });
        scrapes.push({ atMs: second * 1000, samples: [{ name: q.alias, labels: {}, value }] });
      }
    }
    const v = evaluateSelector({ alias: q.alias, fn: 'mean', metric: q.alias, matchers: [], source: q.source }, scrapes, window, { intervalMs: 1000 });
    notes.push(...v.gaps.map(describeGap));
  }
  return { points, notes };
}

/**
 * A counter's value at each second → its increase over the second ending there (seconds whose
 * previous second has no value give none). A drop is a restart from 0: the increase is the new
 * value, and the reset is named as the text sources name it.
 */
function increases(values: ReadonlyMap<number, number>, alias: string, notes: string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [second, v] of [...values].sort((a, b) => a[0] - b[0])) {
    const prev = values.get(second - 1);
    if (prev === undefined) continue;
    if (v < prev) notes.push(describeReset({ alias, atMs: second * 1000, labels: {} }));
    out.push([second, v < prev ? v : v - prev]);
  }
  return out;
}
