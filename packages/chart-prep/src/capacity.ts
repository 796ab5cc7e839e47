/**
 * Capacity under SLOs as every chart states it — the run page, its Markdown and the embeds
 * (`curve.svg`, `curve.png`) — so the sentence and the marks read the same wherever the run goes.
 * The capacity itself is the analysis' (`Capacity` from the API); this only words and places it.
 */
import type { Capacity } from '@kneeboard/contracts';
import { formatLevel, formatQps } from '@kneeboard/contracts/figures';
import { describeSlo, formatSlo, type SloClause, type SloLatencyMetric } from '@kneeboard/contracts/slo';
import type { LatencyKey } from './metrics.ts';

/** The curve series a latency clause is drawn against; the Server-Timing parts are not on a latency chart. */
const SERIES_OF: Partial<Record<SloLatencyMetric, LatencyKey>> = { p50: 'p50_ms', p90: 'p90_ms', p99: 'p99_ms', 'p99.9': 'p999_ms' };

export interface SloLine {
  key: LatencyKey;
  ms: number;
  /** `p99 ≤ 50 ms`: the threshold as the clause gives it (describeSlo). */
  label: string;
  /** The clause's canonical text (`p99<=50ms`). */
  slo: string;
}

/** A horizontal line per latency clause that has a percentile on the latency chart (not errors, not compute_/queue_). */
export function sloLines(clauses: readonly SloClause[]): SloLine[] {
  return clauses.flatMap((c): SloLine[] => {
    if (c.metric === 'errors') return [];
    const key = SERIES_OF[c.metric];
    return key && c.max_ms > 0 ? [{ key, ms: c.max_ms, label: describeSlo(c), slo: formatSlo(c) }] : [];
  });
}

/** `capacity · 1,840 req/s`, next to the marker. */
export function capacityLabel(qps: number): string {
  return `capacity · ${formatQps(qps)} req/s`;
}

/**
 * The one line a review asks for:
 * `Capacity under p99<=50ms: 1,840 req/s at concurrency 24 (bracket 24–32, crossing ≈ 27)`;
 * `… at least …` when no level broke; `No capacity under …` when none holds, saying why.
 */
export function capacityHeadline(capacity: Capacity, parameter: string): string {
  const { bracket } = capacity;
  const under = `under ${capacity.slos.join(', ')}`;
  const at = (level: number) => `${parameter} ${formatLevel(level)}`;
  if (capacity.level !== null && capacity.qps !== null) {
    const where = `${formatQps(capacity.qps)} req/s at ${at(capacity.level)}`;
    if (!bracket.breaks) return `Capacity ${under}: at least ${where} (no level judged broke the SLO)`;
    return `Capacity ${under}: ${where} (bracket ${formatLevel(capacity.level)}–${formatLevel(bracket.breaks.level)}${bracket.crossing ? `, crossing ≈ ${formatLevel(bracket.crossing.level)}` : ''})`;
  }
  if (bracket.breaks) return `No capacity ${under}: it already breaks at ${at(bracket.breaks.level)} and no level below holds`;
  return `No capacity ${under} yet: no level holds or breaks with confidence`;
}
