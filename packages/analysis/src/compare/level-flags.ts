import type { CurvePoint, LittlesLawCheck } from '@kneeboard/contracts';
import { fmtLevel, fmtPct } from '../format.ts';

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
      flags.set(point.level, `the agent flagged ${parameter} ${fmtLevel(point.level)} generator-limited${point.health.reason ? `: ${point.health.reason}` : ''}`);
    }
  }
  for (const check of littlesLaw) {
    if (!check.generator_limited || flags.has(check.level)) continue;
    const inFlight = check.in_flight >= 10 ? Math.round(check.in_flight) : Number(check.in_flight.toPrecision(2));
    flags.set(check.level, `only ${inFlight} of ${fmtLevel(check.level)} requests were in flight (${fmtPct(check.ratio)}, Little's law): the agent, not the service, was the limit`);
  }
  return flags;
}
