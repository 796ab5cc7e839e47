import type { AnalysisPoint, Knee } from '@kneeboard/contracts';
import { formatLevel, formatMs, formatPercent, formatQps } from '@kneeboard/contracts/figures';
import { at } from './format.ts';
import { latencyKnee, type LatencyKnee } from './latency-knee.ts';
import { throughputKnee, type ThroughputKnee } from './throughput-knee.ts';
import type { UslFitResult } from './usl-fit.ts';

export interface KneeFinding {
  knee: Knee | null;
  candidates: Knee[];
  /** The level where throughput stopped scaling, for the verdict; null if it never did. */
  saturationLevel: number | null;
  /** Disagreements between the methods worth a reader's attention. */
  warnings: string[];
}

/** A knee more than 25% past the fitted peak contradicts the fit. */
const KNEE_PAST_PEAK = 1.25;

/** What p50 did above the throughput knee, as the second half of its sentence. */
function latencyClause(points: readonly AnalysisPoint[], level: number): string {
  const at = points.find((p) => p.level === level)?.p50_ms ?? null;
  if (at === null || at <= 0) return '.';
  const above = points.filter((p) => p.level > level && p.p50_ms !== null);
  const doubled = above.find((p) => (p.p50_ms ?? 0) >= 2 * at);
  if (doubled) return ` and p50 doubles by ${formatLevel(doubled.level)}: requests queue above it.`;
  const last = above[above.length - 1];
  if (last?.p50_ms != null && last.p50_ms >= 1.2 * at) {
    return ` and p50 rises ${formatPercent(last.p50_ms / at - 1)} by ${formatLevel(last.level)}.`;
  }
  return '.';
}

function throughputReason(t: ThroughputKnee, points: readonly AnalysisPoint[], parameter: string): string {
  const share = t.qps / t.peakQps;
  const head =
    share >= 0.9
      ? `Throughput stops growing at ${at(parameter, t.level)} (${formatQps(t.qps)} QPS, ${formatPercent(share)} of the peak)`
      : `Throughput growth bends at ${at(parameter, t.level)} (${formatQps(t.qps)} QPS, ${formatPercent(share)} of the peak; ` +
        `above it each step gains ${formatPercent(t.gainAbove)} of proportional)`;
  return head + latencyClause(points, t.level);
}

function latencyReason(l: LatencyKnee, parameter: string): string {
  const evidence = l.doubledAt ?? l.last;
  return (
    `p50 is ${formatMs(l.p50)} ms at ${at(parameter, l.level)} and grows in proportion to the load above it ` +
    `(${formatMs(evidence.p50)} ms at ${formatLevel(evidence.level)}): requests queue there.`
  );
}

function uslReason(fit: UslFitResult, peak: number, maxLevel: number, parameter: string, trusted: boolean): string {
  const beyond = peak > maxLevel ? ', beyond the largest level measured' : '';
  // Kept as evidence either way, but an untrusted fit's peak must not read as a prediction.
  const caveat = trusted ? '' : ' The analysis does not trust this fit, so the peak is the model’s, not a prediction.';
  return `The USL fit peaks at ${at(parameter, peak)} with ${formatQps(fit.peak_qps ?? 0)} QPS${beyond}.${caveat}`;
}

/**
 * Closed loop: the throughput knee (Kneedle) is the answer when there is one; the latency knee
 * stands in when throughput is too noisy to bend cleanly, and the USL peak when only the model
 * sees the turn. All three are kept as evidence.
 */
export function closedLoopKnee(
  points: readonly AnalysisPoint[],
  fit: UslFitResult | null,
  fitTrusted: boolean,
  parameter: string,
): KneeFinding {
  const candidates: Knee[] = [];
  const t = throughputKnee(points);
  if (t) candidates.push({ level: t.level, method: 'kneedle', reason: throughputReason(t, points, parameter) });
  const l = latencyKnee(points);
  if (l) candidates.push({ level: l.level, method: 'latency', reason: latencyReason(l, parameter) });

  const minLevel = points[0]?.level ?? 0;
  const maxLevel = points[points.length - 1]?.level ?? 0;
  const peak = fit?.peak_level ?? null;
  let uslKnee: Knee | null = null;
  if (fit && peak !== null) {
    uslKnee = { level: peak, method: 'usl_peak', reason: uslReason(fit, peak, maxLevel, parameter, fitTrusted) };
    candidates.push(uslKnee);
  }
  // A poor fit's peak stays in the evidence but never becomes the answer.
  const uslInRange =
    fitTrusted && uslKnee !== null && uslKnee.level >= minLevel && uslKnee.level <= maxLevel ? uslKnee : null;

  // Cross-check: throughput cannot keep growing past the model's optimum, so a measured knee
  // well beyond a trusted in-range N* means noise moved one of them.
  const warnings: string[] = [];
  if (t && uslInRange && t.level > KNEE_PAST_PEAK * uslInRange.level) {
    warnings.push(
      `The throughput knee (${at(parameter, t.level)}) lies past the USL peak (${formatLevel(uslInRange.level)}): ` +
        'the curve may be too noisy to place the knee precisely.',
    );
  }
  const knee = candidates.find((c) => c.method === 'kneedle') ?? candidates.find((c) => c.method === 'latency') ?? uslInRange;
  return { knee, candidates, saturationLevel: t?.level ?? l?.level ?? null, warnings };
}
