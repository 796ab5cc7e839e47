import type { MetricDelta } from '@kneeboard/contracts';

const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(Math.abs(x) < 0.1 ? 1 : 0)}%`;

/** "+31% (95% CI +29…+33%)", or "n/a" when a side is missing. */
export function formatPercentChange(d: MetricDelta): string {
  if (d.change === null) return 'n/a';
  const ci = d.ci_low !== null && d.ci_high !== null ? ` [${pct(d.ci_low)}…${pct(d.ci_high)}]` : '';
  return `${pct(d.change)}${ci}`;
}

export function formatQps(x: number | null): string {
  if (x === null) return '—';
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1);
}

export function formatLevel(level: number): string {
  return Number.isInteger(level) ? String(level) : level.toFixed(2);
}
