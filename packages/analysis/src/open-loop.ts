import type { AnalysisPoint, Knee } from '@kneeboard/contracts';
import { formatLevel, formatMs, formatPercent, formatQps } from '@kneeboard/contracts/figures';
import { at } from './format.ts';
import { kneedle } from './kneedle.ts';
import type { KneeFinding } from './closed-loop-knee.ts';

/** Achieved more than 5% below offered: beyond measurement noise, the server is not keeping up. */
const SHORTFALL = 0.05;
/** A p99 bend must at least double p99 above it to count. */
const P99_RISE = 2;

function saturation(points: readonly AnalysisPoint[], parameter: string): Knee | null {
  const i = points.findIndex((p) => p.qps < (1 - SHORTFALL) * p.level);
  const bad = points[i];
  if (bad === undefined) return null;
  const short = formatPercent(1 - bad.qps / bad.level);
  const prev = points[i - 1];
  if (prev === undefined) {
    return {
      level: bad.level,
      method: 'open_saturation',
      reason: `Achieved rate is already ${short} short of the offered rate at the lowest ${at(parameter, bad.level)} (${formatQps(bad.qps)} achieved): the server is saturated throughout.`,
    };
  }
  return {
    level: prev.level,
    method: 'open_saturation',
    reason:
      `The server keeps up with the offered rate up to ${at(parameter, prev.level)} (${formatQps(prev.qps)} achieved) ` +
      `but falls ${short} short at ${formatLevel(bad.level)} (${formatQps(bad.qps)} achieved): it saturates between the two.`,
  };
}

function p99Bend(points: readonly AnalysisPoint[], parameter: string): Knee | null {
  const all = points.filter((p): p is AnalysisPoint & { p99_ms: number } => p.p99_ms !== null && p.p99_ms > 0);
  // Only the rising part: a plateau after the worst p99 (a capped queue, a timeout) would turn
  // the convex curve's flat top into a spurious knee at the last level.
  const worstAt = all.reduce((w, p, i) => (p.p99_ms > (all[w]?.p99_ms ?? 0) ? i : w), 0);
  const withP99 = all.slice(0, worstAt + 1);
  const found = kneedle(
    withP99.map((p) => p.level),
    withP99.map((p) => p.p99_ms),
    { curve: 'convex', direction: 'increasing', S: 1 },
  );
  const k = withP99.findIndex((p) => p.level === found.knee);
  const knee = withP99[k];
  if (knee === undefined) return null;
  let worst = knee;
  for (const p of withP99.slice(k + 1)) if (p.p99_ms > worst.p99_ms) worst = p;
  if (worst.p99_ms < P99_RISE * knee.p99_ms) return null;
  return {
    level: knee.level,
    method: 'open_p99',
    reason: `p99 bends upward above ${at(parameter, knee.level)}: ${formatMs(knee.p99_ms)} ms there, ${formatMs(worst.p99_ms)} ms at ${formatLevel(worst.level)}.`,
  };
}

/**
 * Open loop (level = offered rate): the server saturates where the achieved rate falls short
 * of the offered one, or where p99 bends upward because the queue starts to grow; whichever
 * comes first is the knee, since both mean the offered rate is no longer served as offered.
 */
export function openLoopKnee(points: readonly AnalysisPoint[], parameter: string): KneeFinding {
  const sat = saturation(points, parameter);
  const bend = p99Bend(points, parameter);
  const candidates = [sat, bend].filter((k): k is Knee => k !== null);
  const knee = candidates.reduce<Knee | null>((best, c) => (best === null || c.level < best.level ? c : best), null);
  return { knee, candidates, saturationLevel: sat?.level ?? null, warnings: [] };
}
