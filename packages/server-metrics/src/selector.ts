/**
 * A metric selector, the small documented subset `--metric` accepts:
 *
 *   alias=fn(metric_name{label="v",other!="w"})
 *
 * fn is `rate` (a counter: its increase per second; a drop means the counter restarted from 0),
 * `mean` or `max` (a gauge over the window). Matchers are `=` and `!=` with the exposition format's
 * quoting (`\\`, `\"`, `\n`). Every series that matches is included: rates and gauges are summed
 * across series at each scrape (several containers → their total).
 */

export type SelectorFn = 'rate' | 'mean' | 'max';

export interface LabelMatcher {
  label: string;
  op: '=' | '!=';
  value: string;
}

export interface Selector {
  alias: string;
  fn: SelectorFn;
  metric: string;
  matchers: LabelMatcher[];
  /** The text it was parsed from (normalised), for messages. */
  source: string;
}

export class SelectorError extends Error {
  override readonly name = 'SelectorError';
}

/**
 * The defaults that work with no configuration: any Node, Go, Java or Python Prometheus client
 * exports these two. `cpu` is in cores (CPU-seconds per second), `mem` in bytes (the peak).
 */
export const DEFAULT_SELECTOR_TEXTS = ['cpu=rate(process_cpu_seconds_total)', 'mem=max(process_resident_memory_bytes)'] as const;

const ALIAS = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Parses one selector; throws SelectorError naming what is wrong. */
export function parseSelector(text: string): Selector {
  const m = /^\s*([^=\s]+)\s*=\s*([a-z]+)\s*\(\s*([^{}()\s]*)\s*(?:\{(.*)\})?\s*\)\s*$/s.exec(text);
  if (!m) throw new SelectorError(`selector "${text}": expected alias=fn(metric{label="value"}) with fn rate, mean or max`);
  const [, alias = '', fn = '', metric = '', body] = m;
  if (!ALIAS.test(alias)) throw new SelectorError(`selector "${text}": bad alias "${alias}" (letters, digits, _)`);
  if (fn !== 'rate' && fn !== 'mean' && fn !== 'max') throw new SelectorError(`selector "${text}": unknown function "${fn}" (rate, mean or max)`);
  if (!METRIC_NAME.test(metric)) throw new SelectorError(`selector "${text}": bad metric name "${metric}"`);
  const matchers = body === undefined ? [] : parseMatchers(body, text);
  return { alias, fn, metric, matchers, source: text.trim() };
}

/** Parses several selectors (the `--metric` flags); aliases must be unique. Empty → the defaults. */
export function parseSelectors(texts: readonly string[]): Selector[] {
  const selectors = (texts.length === 0 ? DEFAULT_SELECTOR_TEXTS : texts).map(parseSelector);
  const seen = new Set<string>();
  for (const s of selectors) {
    if (seen.has(s.alias)) throw new SelectorError(`selector "${s.source}": alias "${s.alias}" is used twice`);
    seen.add(s.alias);
  }
  return selectors;
}

export function matches(selector: Selector, name: string, labels: Record<string, string>): boolean {
  if (name !== selector.metric) return false;
  for (const m of selector.matchers) {
    // As in PromQL, a missing label equals "".
    const v = labels[m.label] ?? '';
    if ((m.op === '=') !== (v === m.value)) return false;
  }
  return true;
}

function parseMatchers(body: string, text: string): LabelMatcher[] {
  const out: LabelMatcher[] = [];
  let i = 0;
  const blanks = () => {
    while (body[i] === ' ' || body[i] === '\t') i += 1;
  };
  for (;;) {
    blanks();
    if (i >= body.length) return out;
    const start = i;
    while (i < body.length && /[a-zA-Z0-9_]/.test(body[i]!)) i += 1;
    const label = body.slice(start, i);
    if (!LABEL_NAME.test(label)) throw new SelectorError(`selector "${text}": bad label name at "${body.slice(start)}"`);
    blanks();
    let op: '=' | '!=';
    if (body.startsWith('!=', i)) op = '!=';
    else if (body[i] === '=' && body[i + 1] !== '~') op = '=';
    else throw new SelectorError(`selector "${text}": label ${label}: only = and != are supported`);
    i += op.length;
    blanks();
    if (body[i] !== '"') throw new SelectorError(`selector "${text}": label ${label}: the value must be in double quotes`);
    i += 1;
    let value = '';
    for (;;) {
      const c = body[i];
      if (c === undefined) throw new SelectorError(`selector "${text}": label ${label}: unterminated value`);
      if (c === '"') break;
      if (c === '\\') {
        const e = body[i + 1];
        if (e === '\\' || e === '"') value += e;
        else if (e === 'n') value += '\n';
        else throw new SelectorError(`selector "${text}": label ${label}: bad escape \\${e ?? ''}`);
        i += 2;
        continue;
      }
      value += c;
      i += 1;
    }
    i += 1;
    out.push({ label, op, value });
    blanks();
    if (i >= body.length) return out;
    if (body[i] !== ',') throw new SelectorError(`selector "${text}": expected , between label matchers`);
    i += 1;
  }
}
