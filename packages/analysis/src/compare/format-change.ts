import type { MetricDelta } from '@kneeboard/contracts';

const signed = (x: number, digits: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(digits)}%`;
const digitsFor = (x: number) => (Math.abs(x) < 0.1 ? 1 : 0);

/**
 * "[+29%…+33%]": an interval's ends with as many decimals as it takes for them to differ (up to
 * three), so only data that really has no spread prints a zero-width interval.
 */
export function formatInterval(low: number, high: number): string {
  let digits = Math.max(digitsFor(low), digitsFor(high));
  while (digits < 3 && low !== high && signed(low, digits) === signed(high, digits)) digits++;
  return `[${signed(low, digits)}…${signed(high, digits)}]`;
}

/** "+31% [+29%…+33%]", or "n/a" when a side is missing. */
export function formatPercentChange(d: MetricDelta): string {
  if (d.change === null) return 'n/a';
  const ci = d.ci_low !== null && d.ci_high !== null ? ` ${formatInterval(d.ci_low, d.ci_high)}` : '';
  return `${signed(d.change, digitsFor(d.change))}${ci}`;
}

export function formatQps(x: number | null): string {
  if (x === null) return '—';
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1);
}

export function formatLevel(level: number): string {
  return Number.isInteger(level) ? String(level) : String(Number(level.toPrecision(3)));
}
