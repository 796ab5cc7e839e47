import type { StepHealth } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';

/**
 * Splits a step's total load among agents. Concurrency is split in whole connections (the first
 * `load mod n` agents take one more), so the shares always add up to the total; an agent whose
 * share would be 0 sits the step out. A rate is split evenly (fractions are fine for a rate).
 */
export function splitLoad(load: number, agents: readonly string[], model: 'closed' | 'open'): Map<string, number> {
  const shares = new Map<string, number>();
  const n = agents.length;
  if (n === 0) return shares;
  if (model === 'open') {
    for (const a of agents) shares.set(a, load / n);
    return shares;
  }
  const total = Math.round(load);
  const base = Math.floor(total / n);
  const extra = total - base * n;
  for (const [i, a] of agents.entries()) {
    const share = base + (i < extra ? 1 : 0);
    if (share > 0) shares.set(a, share);
  }
  return shares;
}

export interface AgentPart {
  agent_id: string;
  load: number;
  outcome: 'ok' | 'lost' | 'behind';
  /** Why it was lost or behind, for the step's reason. */
  note: string | null;
  health: StepHealth | null;
}

const sumOrNull = (xs: Array<number | null>): number | null => (xs.some((x) => x === null) ? null : xs.reduce<number>((a, x) => a + x!, 0));

/**
 * The whole step's health from its agents' parts. The step is flagged when any agent was the limit
 * (generator-limited) and when any agent died or fell behind (partial): a partial step carries the
 * same flag, so every comparison treats it as not comparable, and its reason says which agent and
 * how much of the load was missing — it is never shown as a quietly lower curve.
 */
export function combineHealth(total: number, parts: readonly AgentPart[]): { health: StepHealth; partial: boolean } {
  const partialParts = parts.filter((p) => p.outcome !== 'ok');
  const limited = parts.filter((p) => p.health?.generator_limited);
  const reasons: string[] = [];
  if (partialParts.length > 0) {
    const missing = partialParts.map((p) => `${p.agent_id} (${p.note ?? p.outcome}, share ${formatLevel(p.load)})`).join('; ');
    reasons.push(`partial step: ${missing} of ${formatLevel(total)}`);
  }
  for (const p of limited) reasons.push(`agent ${p.agent_id}: ${p.health!.reason ?? 'generator-limited'}`);
  const healths = parts.map((p) => p.health);
  const reason = reasons.length > 0 ? reasons.join(' · ').slice(0, 500) : null;
  return {
    partial: partialParts.length > 0,
    health: {
      target: total,
      in_flight_mean: sumOrNull(healths.map((h) => h?.in_flight_mean ?? null)),
      late_sends: healths.reduce((a, h) => a + (h?.late_sends ?? 0), 0),
      missed_sends: healths.reduce((a, h) => a + (h?.missed_sends ?? 0), 0),
      agent_cpu_cores: sumOrNull(healths.map((h) => h?.agent_cpu_cores ?? null)),
      event_loop_delay_p99_ms: healths.reduce<number | null>((a, h) => (h?.event_loop_delay_p99_ms == null ? a : Math.max(a ?? 0, h.event_loop_delay_p99_ms)), null),
      generator_limited: reasons.length > 0,
      reason,
    },
  };
}
