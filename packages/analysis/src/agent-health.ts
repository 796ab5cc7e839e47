import type { CurvePoint } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';

/**
 * The agent's own verdict on its steps: levels where it could not hold the configured load. Those
 * levels show the load generator's ceiling, so the warning says so before anyone reads the curve.
 */
export function agentHealthWarning(points: ReadonlyArray<Pick<CurvePoint, 'level' | 'health'>>, parameter: string): string | null {
  const limited = points.filter((p) => p.health?.generator_limited);
  if (limited.length === 0) return null;
  const first = limited[0]?.health?.reason;
  return `Generator-limited at ${parameter} ${limited.map((p) => formatLevel(p.level)).join(', ')}: the agent could not hold the configured load there${first ? ` (${first})` : ''}, so those points are its ceiling, not the server's.`;
}
