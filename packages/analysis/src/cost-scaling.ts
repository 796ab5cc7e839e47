import { formatLevel, formatPercent, formatSignificant } from '@kneeboard/contracts';

/**
 * What more CPU bought: seed 002's "it consumes 460% CPU where the first used 100%, but rather than
 * a 4.6x improvement in throughput we only get 2.14x". Two measured points — two levels of one run
 * (threads 1 and 4), or one level in two runs (a comparison) — each with its throughput and the
 * cores the server used for it.
 */
export interface CostPoint {
  qps: number | null;
  cores_used: number | null;
}

export interface CostRatio {
  /** Throughput at `to` ÷ throughput at `from`. */
  qps_ratio: number;
  /** Cores used at `to` ÷ cores used at `from`. */
  cpu_ratio: number;
  /** Requests/s per core at `to` ÷ at `from` (= qps_ratio ÷ cpu_ratio): 1 when every added core works as hard as the first. */
  per_core: number;
}

const measured = (x: number | null): x is number => x !== null && Number.isFinite(x) && x > 0;

/** The two ratios and their quotient, or null where either point lacks a positive throughput or CPU figure. */
export function costRatio(from: CostPoint, to: CostPoint): CostRatio | null {
  if (!measured(from.qps) || !measured(to.qps) || !measured(from.cores_used) || !measured(to.cores_used)) return null;
  const qps = to.qps / from.qps;
  const cpu = to.cores_used / from.cores_used;
  return { qps_ratio: qps, cpu_ratio: cpu, per_core: qps / cpu };
}

/** `2.14×`: three significant digits, none trailing, as the seed writes its ratios. */
export const formatRatio = (ratio: number) => `${formatSignificant(ratio)}×`;

/**
 * A run's scaling bill, from its lowest to its highest level with both figures:
 * "threads 1 → 4: 2.14× the throughput for 4.6× the CPU — each core delivers 46% of what it did at 1".
 * Null with fewer than two such levels.
 */
export function scalingSentence(levels: ReadonlyArray<CostPoint & { level: number }>, parameter: string): string | null {
  const usable = levels.filter((l) => measured(l.qps) && measured(l.cores_used)).sort((a, b) => a.level - b.level);
  const from = usable[0];
  const to = usable[usable.length - 1];
  if (!from || !to || from === to) return null;
  const r = costRatio(from, to);
  if (!r) return null;
  const span = `${parameter} ${formatLevel(from.level)} → ${formatLevel(to.level)}`;
  return `${span}: ${formatRatio(r.qps_ratio)} the throughput for ${formatRatio(r.cpu_ratio)} the CPU — each core delivers ${formatPercent(r.per_core)} of what it did at ${formatLevel(from.level)}`;
}
