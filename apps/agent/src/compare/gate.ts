import { isCapacityDrop } from '@kneeboard/analysis';
import type { CapacityChange, CompareResponse } from '@kneeboard/contracts';

export interface GateResult {
  failed: boolean;
  reasons: string[];
  /** Levels that neither pass nor fail: an agent, not the service, was the limit there. */
  not_comparable: string[];
}

/**
 * The CI gate fails on the overall verdict being a significant regression of at least the
 * threshold (the API only calls changes of min_effect or more): peak throughput, p99 at the base's
 * knee, or any level's QPS, p50 or p99 — the verdict names every regression of the table, and the
 * gate says what the headline says (its false-alarm rate is the comparison's, ≤ 5% for all the
 * verdicts together). A level where the load generator was the limit is `not comparable`: it is
 * listed with its reason and never passes or fails the gate.
 */
export function gate(report: CompareResponse): GateResult {
  const reasons = report.heads.filter((h) => h.overall.verdict === 'regression').map((h) => h.overall.summary);
  const notComparable = report.heads.flatMap((h) =>
    h.levels.flatMap((l) => l.flags.map((f) => `${h.run.release} at ${report.base.parameter} ${l.level}: ${f.side} — ${f.reason}`)),
  );
  return { failed: reasons.length > 0, reasons, not_comparable: notComparable };
}

/**
 * The capacity gate (`--slo … --fail-on-capacity-drop PCT`): fails when any head serves
 * significantly less within the SLOs — its change's interval below no change and the change at
 * least PCT down (with no estimate, the interval's top at least PCT down). Each drop is named by
 * its summary sentence.
 */
export function capacityGate(changes: readonly CapacityChange[], minDrop: number): Pick<GateResult, 'failed' | 'reasons'> {
  const reasons = changes.filter((c) => isCapacityDrop(c, minDrop)).map((c) => c.summary);
  return { failed: reasons.length > 0, reasons };
}
