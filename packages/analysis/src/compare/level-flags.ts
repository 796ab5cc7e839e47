import type { CurvePoint, LittlesLawCheck } from '@kneeboard/contracts';
import { formatInFlight, formatLevel, formatPercent } from '@kneeboard/contracts/figures';

/**
 * Levels whose numbers are not the service's, with the reason in one sentence — the same two
 * checks the run page marks "!": the agent's own health report (it could not hold the load) and,
 * for closed loops, Little's law (fewer requests in flight than the level by more than 10%).
 */
export function levelFlags(curve: readonly CurvePoint[], littlesLaw: readonly LittlesLawCheck[], parameter: string): Map<number, string> {
  const flags = new Map<number, string>();
  for (const point of curve) {
    if (point.in_progress) continue;
    if (point.health?.generator_limited) {
      flags.set(point.level, `the agent flagged ${parameter} ${formatLevel(point.level)} generator-limited${point.health.reason ? `: ${point.health.reason}` : ''}`);
    }
  }
  for (const check of littlesLaw) {
    if (!check.generator_limited || flags.has(check.level)) continue;
    flags.set(check.level, `only ${formatInFlight(check.in_flight)} of ${formatLevel(check.level)} requests were in flight (${formatPercent(check.ratio)}, Little's law): the agent, not the service, was the limit`);
  }
  return flags;
}
