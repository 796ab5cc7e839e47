/**
 * The sentences' own number words: shares, fitted coefficients and "concurrency 8". Levels, QPS,
 * latencies and in-flight counts are figures that other readers print too, so they come from
 * `@kneeboard/contracts/figures` (one text per number, the same in the Markdown, the web app and
 * the CLI). Plain and locale-independent, like those.
 */
import { formatLevel } from '@kneeboard/contracts/figures';

function significant(v: number, digits: number): string {
  return String(Number(v.toPrecision(digits)));
}

/** 0.971 → "97%". */
export function fmtPct(ratio: number): string {
  return `${Math.round(ratio * 100)}%`;
}

/** A share that may be tiny: 0.0004 → "0.04%", 0.123 → "12%". */
export function fmtShare(ratio: number): string {
  return ratio >= 0.01 ? fmtPct(ratio) : `${significant(ratio * 100, 1)}%`;
}

/** A fitted coefficient: two significant digits, 0.0277 → "0.028", 0.0001044 → "0.0001". */
export function fmtCoef(v: number): string {
  return v === 0 ? '0' : significant(v, 2);
}

/** "concurrency 8": the run's own name for its level. */
export function at(parameter: string, level: number): string {
  return `${parameter} ${formatLevel(level)}`;
}
