import type { LoadModel } from '@kneeboard/contracts';
import { formatLevel, formatPercent, formatQps } from '@kneeboard/contracts/figures';
import { at, fmtCoef } from './format.ts';
import { hardLimit } from './hard-limit.ts';
import type { UslFitResult } from './usl-fit.ts';

interface Point {
  level: number;
  qps: number;
}

export interface VerdictInput {
  points: readonly Point[];
  parameter: string;
  loadModel: LoadModel;
  /** Only a fit the analysis trusts (`uslTrust`): its coefficients name the cause. */
  fit: UslFitResult | null;
  /** Where throughput stopped scaling according to the knee detectors; null if it never did. */
  saturationLevel: number | null;
}

/** Throughput within 10% of the smallest level's across a doubling or more: nothing scales. */
const SERIAL_GAIN = 1.1;
/** A fall of more than 5% from the peak by the last level is retrograde, not noise. */
const RETROGRADE_DROP = 0.95;
/** At least 80% efficiency at the largest level, with no knee, reads as linear. */
const LINEAR_EFFICIENCY = 0.8;

/**
 * One sentence in one of seven shapes: "Scales linearly to …", "Saturates at … (contention …)",
 * "Still scaling at …, sublinearly", "Hard limit of about … from …", "Retrograde above …
 * (coherency …)", "Does not scale (serialized) …" and "Already at its ceiling at … or below …". It is decided from the
 * measurements, so it holds with two levels and no fit; the USL coefficients, when the fit is
 * trusted, name the cause.
 */
export function verdict({ points, parameter, loadModel, fit, saturationLevel }: VerdictInput): string {
  const first = points[0];
  const last = points[points.length - 1];
  if (first === undefined || last === undefined) return 'No completed levels yet: nothing to judge.';
  if (first === last) return `Only ${at(parameter, first.level)} is measured so far: a verdict needs two levels or more.`;

  const perUnit = first.qps / first.level;
  const efficiency = (p: Point) => p.qps / (p.level * perUnit);
  const peak = points.reduce((best, p) => (p.qps > best.qps ? p : best), first);

  if (last.level >= 2 * first.level && peak.qps <= SERIAL_GAIN * first.qps) {
    // "Serialized" means one unit of load gets as much as many: only a sweep that measured one
    // unit can say it. Starting higher, a flat curve only says the knee is at or below the start.
    if (first.level > 1) return ceilingSentence(points, parameter, peak);
    const sigma = fit ? `, contention σ=${fmtCoef(fit.sigma)}` : '';
    return (
      `Does not scale (serialized): ${at(parameter, last.level)} delivers ${formatQps(last.qps)} QPS, ` +
      `no more than ${formatQps(first.qps)} at ${formatLevel(first.level)} (efficiency ${formatPercent(efficiency(last))}${sigma}).`
    );
  }

  if (peak !== first && peak !== last && last.qps <= RETROGRADE_DROP * peak.qps) {
    const kappa = fit?.model === 'usl' ? ` (coherency κ=${fmtCoef(fit.kappa)})` : ' (coherency)';
    return (
      `Retrograde above ${at(parameter, peak.level)}${kappa}: throughput falls ${formatPercent(1 - last.qps / peak.qps)} ` +
      `from its peak of ${formatQps(peak.qps)} QPS by ${formatLevel(last.level)}.`
    );
  }

  if (saturationLevel === null && efficiency(last) >= LINEAR_EFFICIENCY) {
    return `Scales linearly to ${at(parameter, last.level)} (efficiency ${formatPercent(efficiency(last))} there).`;
  }

  const cap = loadModel === 'closed' ? hardLimit(points) : null;
  if (cap) {
    return (
      `Hard limit of about ${formatQps(cap.qps)} QPS from ${at(parameter, cap.level)} to ${formatLevel(cap.lastLevel)}: ` +
      'throughput is flat, not falling — the mark of a fixed pool, semaphore or core count, not of contention.'
    );
  }

  const level = saturationLevel ?? points.find((p) => p.qps >= RETROGRADE_DROP * peak.qps)?.level ?? peak.level;
  // Without a trusted fit the cause is unknown: a corner the levels cannot place may be contention
  // or a fixed limit, and naming one would be a guess.
  let cause = '';
  if (loadModel === 'open') cause = ' (achieved falls short of offered above it)';
  else if (fit) cause = ` (contention σ=${fmtCoef(fit.sigma)}${fit.model === 'usl' ? `, coherency κ=${fmtCoef(fit.kappa)}` : ''})`;
  const before = points[points.length - 2] as Point;
  if (saturationLevel === null && level === last.level && last.qps > before.qps / RETROGRADE_DROP) {
    // No knee found and the last level still gained more than the plateau's 5%: nothing has levelled
    // off, so "saturates at the last level" would invent a knee the measurements do not show.
    return (
      `Still scaling at ${at(parameter, last.level)}, sublinearly${cause}: ${formatQps(last.qps)} QPS there, ${formatPercent(last.qps / before.qps - 1)} ` +
      `more than at ${formatLevel(before.level)} (efficiency ${formatPercent(efficiency(last))}); no knee in the levels measured — sweep higher to place it.`
    );
  }
  return `Saturates at ${at(parameter, level)}${cause}: throughput levels off at about ${formatQps(peak.qps)} QPS.`;
}

/** The sweep began at or past its knee: where the knee is, only lower levels can tell. */
function ceilingSentence(points: readonly Point[], parameter: string, peak: Point): string {
  const first = points[0] as Point;
  const last = points[points.length - 1] as Point;
  const head = `Already at its ceiling at ${at(parameter, first.level)} or below — sweep lower to place the knee: `;
  if (last.qps <= RETROGRADE_DROP * peak.qps) {
    return (
      head +
      `throughput is retrograde, falling ${formatPercent(1 - last.qps / peak.qps)} from ${formatQps(peak.qps)} QPS at ` +
      `${formatLevel(peak.level)} to ${formatQps(last.qps)} at ${formatLevel(last.level)}.`
    );
  }
  return head + `throughput stays at about ${formatQps(peak.qps)} QPS from ${formatLevel(first.level)} to ${formatLevel(last.level)}.`;
}
