/**
 * The sentences' own number words: tiny shares, fitted coefficients and "concurrency 8". Levels, QPS,
 * latencies, in-flight counts and percentages are figures that other readers print too, so they come from
 * `@kneeboard/contracts/figures` (one text per number, the same in the Markdown, the web app and
 * the CLI). Plain and locale-independent, like those.
 */
import { formatLevel, formatPercent } from '@kneeboard/contracts/figures';

function significant(v: number, digits: number): string {
  return String(Number(v.toPrecision(digits)));
}

/**
 * A share of requests that may be tiny, and must not read as none: 0.0004 → "0.04%", otherwise the
 * shared percentage (0.03 → "3%", 0.123 → "12%").
 */
export function fmtShare(ratio: number): string {
  return ratio >= 0.01 ? formatPercent(ratio) : `${significant(ratio * 100, 1)}%`;
}

/** A fitted coefficient: two significant digits, 0.0277 → "0.028", 0.0001044 → "0.0001". */
export function fmtCoef(v: number): string {
  return v === 0 ? '0' : significant(v, 2);
}

/** "concurrency 8": the run's own name for its level. */
export function at(parameter: string, level: number): string {
  return `${parameter} ${formatLevel(level)}`;
}
