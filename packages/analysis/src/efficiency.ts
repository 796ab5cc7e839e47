import type { EfficiencyPoint } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { at } from './format.ts';

interface Point {
  level: number;
  qps: number;
}

export interface Efficiency {
  efficiency: EfficiencyPoint[];
  /** One sentence naming the baseline. */
  basis: string;
}

/**
 * Scaling efficiency X(N) ÷ (N·X(1)): the throughput each unit of load delivers, relative to
 * one unit alone (seed 000's "scaling factor"). Sweeps that start above 1 have no X(1), so the
 * smallest level's X(Nmin)/Nmin stands in as the per-unit baseline, which flatters nothing but
 * hides whatever was lost below Nmin.
 */
export function scalingEfficiency(points: readonly Point[], parameter: string): Efficiency {
  const base = points[0];
  if (base === undefined) return { efficiency: [], basis: 'No completed levels yet.' };
  const perUnit = base.qps / base.level;
  const basis =
    base.level === 1
      ? 'Efficiency is X(N) ÷ (N × X(1)): 100% means each unit of load adds as much as the first.'
      : `Efficiency is relative to ${at(parameter, base.level)}, the smallest level measured: ` +
        `X(N) ÷ (N × X(${formatLevel(base.level)}) / ${formatLevel(base.level)}), so it cannot show losses below it.`;
  return {
    efficiency: points.map((p) => ({ level: p.level, efficiency: p.qps / (p.level * perUnit) })),
    basis,
  };
}
