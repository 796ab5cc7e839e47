import type { StepHealth } from '@kneeboard/contracts';
import { formatInFlight, formatLevel, formatMs, formatPercent, formatQps } from '@kneeboard/contracts/figures';
import type { AgentUsage } from './agent-monitor.ts';
import type { OpenLoopCounts } from './open-loop.ts';

/** Everything the verdict on one step rests on, measured over its window. */
export interface HealthInput {
  loadModel: 'closed' | 'open';
  /** Concurrency (closed) or offered requests/s (open). */
  target: number;
  windowMs: number;
  /** Time-weighted count of requests on the wire. */
  inFlightMean: number | null;
  /** Little's law: completed requests/s × their mean latency. */
  littlesInFlight: number | null;
  /** Mean latency of the window's requests, ms (for the think-time correction). */
  meanLatencyMs: number | null;
  thinkTimeMs: number;
  maxConnections: number;
  /** Connections open to the target at the end of the window (undici's pool stats). */
  connections: number | null;
  open: OpenLoopCounts | null;
  usage: AgentUsage | null;
  p50Ms: number | null;
}

/** Thresholds, with why. */
export const LIMITS = {
  /** Little's law and the direct count must reach 90% of the configured concurrency (closed loop). */
  inFlightRatio: 0.9,
  /** Sends must reach 95% of the sends due (open loop). */
  sendRatio: 0.95,
  /** More than 5% of sends later than the tolerance means the schedule was not kept. */
  lateShare: 0.05,
  /** A main thread busy more than 90% of the time cannot react to responses as they arrive. */
  eventLoopUtilization: 0.9,
  /** Event-loop lag p99 above max(20 ms, half the p50 latency) distorts the latencies measured. */
  loopDelayFloorMs: 20,
  loopDelayShareOfP50: 0.5,
} as const;

/**
 * The agent's verdict on its own step: was the configured load really applied, and were the times
 * real? The first failing rule gives the one-sentence reason; any failing rule marks the step
 * generator_limited, so nobody reads the agent's ceiling as the server's.
 */
export function judgeStep(h: HealthInput, lateToleranceMs: number): StepHealth {
  const reasons: string[] = [];
  if (h.loadModel === 'closed') {
    // With think time, each worker has a request out only R/(R+Z) of the time.
    const r = h.meanLatencyMs;
    const expected = h.thinkTimeMs > 0 && r !== null ? (h.target * r) / (r + h.thinkTimeMs) : h.target;
    const capped =
      h.maxConnections < h.target
        ? ` — --max-connections ${h.maxConnections} caps the connections`
        : h.connections !== null && h.connections < LIMITS.inFlightRatio * expected
          ? ` — only ${h.connections} connections were open: the target accepted them too slowly (or refused them)`
          : '';
    if (h.inFlightMean !== null && h.inFlightMean < LIMITS.inFlightRatio * expected) {
      reasons.push(`only ${formatInFlight(h.inFlightMean)} of ${formatLevel(expected)} requests were on the wire on average${capped}`);
    } else if (h.littlesInFlight !== null && h.littlesInFlight < LIMITS.inFlightRatio * expected) {
      reasons.push(`by Little's law (QPS × mean latency) only ${formatInFlight(h.littlesInFlight)} of ${formatLevel(expected)} requests were in flight`);
    }
  } else if (h.open !== null) {
    const { intended, sent, late, missed } = h.open;
    // Against the schedule's own count: Poisson arrivals due in a window vary around rate × window.
    const perS = (n: number) => (h.windowMs > 0 ? (n * 1000) / h.windowMs : 0);
    if (missed > 0) reasons.push(`${missed} of ${intended} sends were never made: all ${h.maxConnections} connections (--max-connections) were busy`);
    else if (sent < LIMITS.sendRatio * intended) reasons.push(`sent only ${formatQps(perS(sent))} of the ${formatQps(perS(intended))} requests/s due`);
    if (intended > 0 && late > LIMITS.lateShare * intended) {
      reasons.push(`${formatPercent(late / intended)} of sends left more than ${lateToleranceMs} ms after their intended time`);
    }
  }
  const u = h.usage;
  if (u !== null && u.eventLoopUtilization > LIMITS.eventLoopUtilization) {
    reasons.push(`${u.loopName ?? "the agent's event loop"} was busy ${formatPercent(u.eventLoopUtilization)} of the time, so it — not the target — set the pace`);
  }
  const lagLimit = Math.max(LIMITS.loopDelayFloorMs, LIMITS.loopDelayShareOfP50 * (h.p50Ms ?? 0));
  if (u !== null && u.loopDelayP99Ms > lagLimit) {
    reasons.push(`${u.loopName ?? "the agent's event loop"} lagged ${formatMs(u.loopDelayP99Ms)} ms (p99), so its send and receive times are off by that much`);
  }
  const first = reasons[0];
  return {
    target: h.target,
    in_flight_mean: h.inFlightMean === null ? null : round3(h.inFlightMean),
    late_sends: h.open?.late ?? 0,
    missed_sends: h.open?.missed ?? 0,
    agent_cpu_cores: u === null ? null : round3(u.cpuCores),
    event_loop_delay_p99_ms: u === null ? null : round3(u.loopDelayP99Ms),
    generator_limited: first !== undefined,
    reason: first === undefined ? null : `${first[0]!.toUpperCase()}${first.slice(1)}.`.slice(0, 500),
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
