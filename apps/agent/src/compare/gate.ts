import type { CompareResponse } from '@kneeboard/contracts';

export interface GateResult {
  failed: boolean;
  reasons: string[];
}

/**
 * The CI gate fails on the overall verdict — peak throughput or p99 at the base's knee — being a
 * significant regression of at least the threshold (the API only calls changes of min_effect or
 * more). Per-level regressions are reported but do not fail the gate on their own: with three
 * metrics at every level, some would trip by chance on identical builds.
 */
export function gate(report: CompareResponse): GateResult {
  const reasons = report.heads.filter((h) => h.overall.verdict === 'regression').map((h) => h.overall.summary);
  return { failed: reasons.length > 0, reasons };
}
