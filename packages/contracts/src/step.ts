import { z } from 'zod';
import { LINE, plainLine } from './text.ts';
import { EpochMs, IngestEpochMs, IngestLevel, Level } from './common.ts';

/**
 * How the load generator itself fared during a step, measured by the agent. A step where the agent
 * could not hold the configured load is `generator_limited`: its numbers are the agent's ceiling,
 * not the server's.
 */
export const StepHealth = z.object({
  /** The load the step was meant to hold: concurrency (closed loop) or requests/s (open loop). */
  target: z.number().nonnegative(),
  /** Requests actually in flight, time-averaged over the measurement window (a direct count). */
  in_flight_mean: z.number().nonnegative().nullable(),
  /** Open loop: sends that left later than their intended time (beyond a small tolerance). */
  late_sends: z.number().int().nonnegative().default(0),
  /** Open loop: intended sends that were never made (the agent fell too far behind). */
  missed_sends: z.number().int().nonnegative().default(0),
  /** The agent process's CPU use, in cores (1.0 = one core busy). */
  agent_cpu_cores: z.number().nonnegative().nullable(),
  /** The agent's event-loop delay, p99, ms: a busy agent sends and times late. */
  event_loop_delay_p99_ms: z.number().nonnegative().nullable(),
  generator_limited: z.boolean(),
  /** Why the step was flagged, in one sentence; null when it was not. */
  reason: z.string().max(500).superRefine(plainLine).meta(LINE).nullable().default(null),
});
export type StepHealth = z.infer<typeof StepHealth>;

/** A step opening more connections than this is reconnecting per request at any rate the agent can drive. */
export const MAX_STEP_CONNECTIONS = 1e9;
/** A handshake longer than a minute is a stall, not a figure: the agent's connect timeout is shorter. */
const HandshakeMs = z.number().finite().nonnegative().max(60_000, 'must be at most 60000 ms').nullable();

/**
 * The connections a step opened to the target, measured by the agent over the whole step (warm-up
 * included): a level that keeps reconnecting pays a handshake per request, and this is where it shows.
 * Handshake times are null over plain HTTP, or when the engine does not time them.
 */
export const StepConnections = z.object({
  /** Connections opened during the step (a TLS handshake each over https://). */
  opened: z.number().int().nonnegative().max(MAX_STEP_CONNECTIONS, `must be at most ${MAX_STEP_CONNECTIONS}`),
  /** TLS handshake time, from the TCP connect to the handshake's end, ms. */
  handshake_p50_ms: HandshakeMs.default(null),
  handshake_p99_ms: HandshakeMs.default(null),
  handshake_max_ms: HandshakeMs.default(null),
});
export type StepConnections = z.infer<typeof StepConnections>;

const windowOrder = (s: { started_at: number; measure_from: number; ended_at: number | null }, ctx: z.RefinementCtx) => {
  if (s.measure_from < s.started_at) {
    ctx.addIssue({ code: 'custom', path: ['measure_from'], message: 'must not be before started_at' });
  }
  if (s.ended_at !== null && s.ended_at < s.measure_from) {
    ctx.addIssue({ code: 'custom', path: ['ended_at'], message: 'must not be before measure_from' });
  }
};

const StepWindowShape = z.object({
  level: Level,
  started_at: EpochMs,
  measure_from: EpochMs,
  ended_at: EpochMs.nullable().default(null),
  /** Sent with the step's final window by agents that measure themselves. */
  health: StepHealth.nullable().optional(),
  /** Sent with the step's final window by agents that count their connections; absent from older agents. */
  connections: StepConnections.nullable().optional(),
});

/**
 * A load level's time window. Requests completed before `measure_from` are warm-up and excluded
 * from the curve. `ended_at` may be omitted while the step is still running (the agent posts the
 * window when the step starts and again when it ends); the latest post for a level wins.
 */
export const StepWindow = StepWindowShape.superRefine(windowOrder);
export type StepWindow = z.infer<typeof StepWindow>;
export type StepWindowInput = z.input<typeof StepWindow>;

/** A step window as posted: the same shape, with levels and times bounded to what is meaningful. */
export const StepWindowBody = StepWindowShape.extend({
  level: IngestLevel,
  started_at: IngestEpochMs,
  measure_from: IngestEpochMs,
  ended_at: IngestEpochMs.nullable().default(null),
}).superRefine(windowOrder);

/**
 * A run's step windows together span at most a week: a sweep, a soak or an imported file fits,
 * while one step posted years away from the others would widen the time span the run's events
 * are checked against (the steps' span ± 15 minutes) to those years, and every check of `ts_ms`
 * with it. The first step may lie anywhere in 2000–2100: an imported file keeps its own times,
 * which may be long before the run was created.
 */
export const MAX_RUN_STEPS_SPAN_MS = 7 * 86_400_000;

/**
 * Why a step window cannot join a run whose steps so far cover [from, to] (null, null: none yet),
 * or null when it can: together they must span at most MAX_RUN_STEPS_SPAN_MS.
 */
export function stepSpanProblem(
  steps: { from: number | null; to: number | null },
  w: { started_at: number; ended_at: number | null },
): { field: 'started_at' | 'ended_at'; message: string } | null {
  const end = w.ended_at ?? w.started_at;
  const from = Math.min(steps.from ?? w.started_at, w.started_at);
  const to = Math.max(steps.to ?? end, end);
  if (to - from <= MAX_RUN_STEPS_SPAN_MS) return null;
  const iso = (ms: number) => new Date(ms).toISOString();
  const limit = "a run's steps span at most 7 days";
  if (steps.from === null || steps.to === null) return { field: 'ended_at', message: `this window spans ${iso(from)} … ${iso(to)}; ${limit}` };
  // Blame the start when the window begins outside the others, its end when only that reaches too far.
  const field = w.started_at >= steps.from && w.started_at <= steps.to ? 'ended_at' : 'started_at';
  return { field, message: `the run's steps cover ${iso(steps.from)} … ${iso(steps.to)}; with this window they would span ${iso(from)} … ${iso(to)}, and ${limit}` };
}
