/**
 * Number formatting for the sentences: plain, locale-independent (the same text in Node and in
 * every browser), and only as many digits as a reader can use.
 */
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

function significant(v: number, digits: number): string {
  return String(Number(v.toPrecision(digits)));
}

/** 8 → "8", 12.5 → "12.5", 1000 → "1000" (levels are labels, so no grouping). */
export function fmtLevel(level: number): string {
  return Number.isInteger(level) ? String(level) : significant(level, 3);
}

/** 128050 → "128,050", 99.4 → "99", 9.04 → "9.04". */
export function fmtQps(qps: number): string {
  return Math.abs(qps) >= 100 ? grouped.format(qps) : significant(qps, 3);
}

export function fmtMs(ms: number): string {
  return Math.abs(ms) >= 100 ? grouped.format(ms) : significant(ms, 3);
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
  return `${parameter} ${fmtLevel(level)}`;
}
