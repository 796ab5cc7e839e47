/**
 * Prepare the comparison's capacity and cost lines for reading. Both are the API's (`capacity` and
 * `cost` on each head of `GET /compare`, made by @kneeboard/analysis): this only decides what is
 * shown under which SLOs, and never judges anything itself.
 */
import type { HeadComparison } from '@kneeboard/contracts';
import type { ActiveSlo } from './capacity-view.ts';

/**
 * The head's capacity sentence under the SLOs shown, or null: none asked, or an answer for other
 * SLOs (an older one, while the new one loads) — never shown under the new ones.
 */
export function capacityLine(head: HeadComparison, slo: ActiveSlo | null): string | null {
  if (slo === null || !head.capacity || head.capacity.slos.join(',') !== slo.text) return null;
  return head.capacity.summary;
}

export interface CostLines {
  /** `+8% [+5%…+11%] QPS for +31% CPU at 64`, one per level both sides read CPU at. */
  sentences: Array<{ level: number; text: string; notComparable: boolean }>;
  note: string;
}

/** The head's cost changes; null when neither side (or only one) has server metrics, so such runs look as before. */
export function costLines(head: HeadComparison): CostLines | null {
  if (!head.cost || head.cost.levels.length === 0) return null;
  return { sentences: head.cost.levels.map((l) => ({ level: l.level, text: l.sentence, notComparable: l.not_comparable })), note: head.cost.note };
}
