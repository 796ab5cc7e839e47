/**
 * Open-loop runs: the level is the offered rate (req/s), so throughput can be read against it.
 * Below saturation the server serves what is offered (achieved ≈ offered, on the y = x line); past
 * it achieved falls below the line. This module prepares the "offered = achieved" reference line,
 * the level axis' label and the table's achieved ÷ offered cells.
 */
import type { CurvePoint, LoadModel } from '@kneeboard/contracts';
import { formatPercent } from '@kneeboard/contracts/figures';
import type { ScaleKind } from '@kneeboard/chart-prep';

export function isOpenLoop(loadModel: LoadModel | string): boolean {
  return loadModel === 'open';
}

/** The level axis' label: the parameter, or for an open loop `offered rate (req/s)` (`offered {parameter}` for any parameter but concurrency). */
export function levelAxisLabel(parameter: string, loadModel: LoadModel | string): string {
  if (!isOpenLoop(loadModel)) return parameter;
  return `offered ${parameter === 'concurrency' || parameter === '' ? 'rate' : parameter} (req/s)`;
}

/**
 * Points of the y = x line over the level axis' domain. On a linear axis its two ends; on a log x
 * axis (linear y) the line is a curve, so it is sampled geometrically. Only positive offered rates
 * on a log axis.
 */
export function offeredLine(domain: readonly [number, number], scale: ScaleKind, samples = 48): Array<{ level: number; qps: number }> {
  const hi = domain[1];
  let lo = domain[0];
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi <= lo) return [];
  if (scale === 'log') {
    if (hi <= 0) return [];
    lo = Math.max(lo, hi * 1e-6);
    const step = Math.log(hi / lo) / (samples - 1);
    return Array.from({ length: samples }, (_, i) => {
      const v = i === samples - 1 ? hi : lo * Math.exp(step * i);
      return { level: v, qps: v };
    });
  }
  return [
    { level: lo, qps: lo },
    { level: hi, qps: hi },
  ];
}

/** Below this share of the offered rate a level counts as saturated (it could not keep up). */
export const SATURATED_BELOW = 0.95;

export interface AchievedCell {
  /** achieved ÷ offered */
  ratio: number;
  /** `99%` */
  text: string;
  /** 0–100, capped */
  barPct: number;
  saturated: boolean;
  title: string;
}

/** Achieved ÷ offered for one level; null where nothing can be said (in progress, offered ≤ 0). */
export function achievedCell(point: Pick<CurvePoint, 'level' | 'qps' | 'in_progress'>): AchievedCell | null {
  if (point.in_progress || !(point.level > 0) || !Number.isFinite(point.qps) || point.qps < 0) return null;
  const ratio = point.qps / point.level;
  const saturated = ratio < SATURATED_BELOW;
  const text = formatPercent(ratio);
  return {
    ratio,
    text,
    barPct: Math.min(100, ratio * 100),
    saturated,
    title: `achieved ${text} of the offered rate${saturated ? ': the server could not keep up (saturated)' : ''}`,
  };
}
