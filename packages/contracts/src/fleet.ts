import { z } from 'zod';
import { AgentId } from './events.ts';
import { EpochMs, IngestEpochMs, IngestLevel, IngestMillis, Level, RunId } from './common.ts';
import { LoadModel } from './run.ts';
import { StepHealth } from './step.ts';
import { HeaderValue, HTTP_TOKEN, MAX_MIX_REQUESTS, MixPath, MixRequestName, MixWeight } from './request-mix.ts';
import { LINE, plainLine } from './text.ts';

/**
 * Several agents, one run: the coordinator posts a plan, agents join it, the API splits each step's
 * load among the agents that joined and starts every step on a barrier (a time on the API's clock).
 * All times here are epoch ms on the API's clock unless named `*_local`.
 */

/**
 * A request mix as the plan carries it (`kneeboard sweep --requests FILE --agents N`): the
 * coordinator reads the file (mix.json or HAR) and sends what it parsed, since an agent on another
 * host cannot read the coordinator's file. Each request goes to the plan's target origin.
 */
export const FleetMixRequest = z
  .object({
    name: MixRequestName,
    method: z.string().max(16, 'must be at most 16 characters').regex(HTTP_TOKEN, 'must be an HTTP method such as GET or POST'),
    path: MixPath.max(8_000, 'must be at most 8000 characters'),
    headers: z.record(z.string().max(200, 'must be at most 200 characters').regex(HTTP_TOKEN, 'header names must be HTTP tokens'), HeaderValue).default({}),
    body: z.string().nullable().default(null),
    weight: MixWeight,
  })
  .strict();
export type FleetMixRequest = z.infer<typeof FleetMixRequest>;

/**
 * A mix's paths, header names and values and bodies together, in UTF-16 code units: the plan is one
 * API request (the body limit is 256 KiB by default) and is read back on every agent's poll, so the
 * mix is kept well under it; a larger mix belongs to one agent (`--requests` without `--agents`).
 */
export const MAX_FLEET_MIX_CHARS = 192 * 1024;
/** A CA file's PEM as the plan carries it: a private CA or a server's own certificate, not a system bundle. */
export const MAX_FLEET_CA_PEM_CHARS = 32 * 1024;

const mixChars = (requests: readonly FleetMixRequest[]) =>
  requests.reduce((n, r) => n + r.name.length + r.path.length + (r.body?.length ?? 0) + Object.entries(r.headers).reduce((h, [k, v]) => h + k.length + v.length, 0), 0);

/**
 * What every agent sends: the target and its request (agents need no flags of their own for them):
 * the one request, or a weighted mix of them, and how it is carried (TLS trust, HTTP version).
 */
export const FleetRequest = z.object({
  target: z.url().refine((u) => /^https?:\/\//.test(u), 'must be an http:// or https:// URL'),
  method: z.string().min(1).max(16).default('GET'),
  headers: z.record(z.string().min(1).max(200), z.string().max(8_000)).default({}),
  body: z.string().max(1_000_000).nullable().default(null),
  timeout_ms: z.number().int().positive().max(600_000).default(30_000),
  /** A weighted mix sent instead of the one request (`method`/`body` then unused; `headers` go on every request, the entry's own win). */
  requests: z
    .array(FleetMixRequest)
    .min(1, 'needs at least one request')
    .max(MAX_MIX_REQUESTS, `must be at most ${MAX_MIX_REQUESTS} requests`)
    .refine((rs) => mixChars(rs) <= MAX_FLEET_MIX_CHARS, `must be at most ${MAX_FLEET_MIX_CHARS / 1024} KiB of paths, headers and bodies in all (sweep a larger mix from one agent)`)
    .optional(),
  /** `1.1`, `2` (HTTP/2: prior knowledge on http://, ALPN h2 on https://) or `auto` (https://: the server's ALPN pick). Not 1.1: the native engine only. */
  http: z.enum(['1.1', '2', 'auto']).default('1.1'),
  /** HTTP/2: the connections each agent spreads its streams over (default: as few as the server's stream limit allows). */
  connections: z.number().int().min(1).max(100_000).optional(),
  /** https://: accept any certificate (each agent warns). */
  insecure: z.boolean().default(false),
  /** https://: PEM certificates each agent trusts besides its system's roots (the content of the coordinator's --ca-file). */
  ca_pem: z
    .string()
    .max(MAX_FLEET_CA_PEM_CHARS, `must be at most ${MAX_FLEET_CA_PEM_CHARS / 1024} KiB (a private CA or the server's certificate, not a system bundle)`)
    .refine((p) => p.includes('-----BEGIN CERTIFICATE-----'), 'must hold a PEM certificate')
    .optional(),
});
export type FleetRequest = z.infer<typeof FleetRequest>;

export const FleetPlanStep = z.object({
  /** What the run shows: the total over all agents. */
  level: IngestLevel,
  /** The total load to split: concurrency (closed loop) or requests/s (open loop). Often equal to level. */
  load: z.number().finite().positive().max(1e9),
  /**
   * The run this step's events and window go to, when not the plan's own: `--repeat` interleaves
   * the levels of several runs of one release (same service) in one plan.
   */
  run_id: RunId.optional(),
});
export type FleetPlanStep = z.infer<typeof FleetPlanStep>;

/** A level may appear once per run of a plan: a second window would replace the first. */
export const fleetStepKey = (s: { level: number; run_id?: string | undefined }) => `${s.run_id?.toLowerCase() ?? ''}|${s.level}`;

export const FleetPlanBody = z
  .object({
    /** Agents that must join before the first step starts. */
    agents: z.number().int().min(1).max(1_000),
    load_model: LoadModel.default('closed'),
    arrivals: z.enum(['uniform', 'poisson']).default('uniform'),
    /** Closed loop: each agent's pause after every response (the CLI's --think-time). */
    think_time_ms: z.number().finite().nonnegative().max(600_000).default(0),
    steps: z.array(FleetPlanStep).min(1).max(1_000),
    warmup_ms: IngestMillis.default(0),
    duration_ms: IngestMillis.positive('must be positive'),
    request: FleetRequest,
    /** How far in the future a step's barrier is set when it is handed out: time to receive it and get ready. */
    lead_ms: z.number().int().min(50).max(60_000).default(1_000),
    /** An agent silent this long during a step is taken as dead: the step is marked partial. */
    heartbeat_timeout_ms: z.number().int().min(500).max(600_000).default(5_000),
    /** An agent that starts its share later than this after the barrier fell behind: the step is marked partial. */
    start_tolerance_ms: z.number().int().min(1).max(60_000).default(200),
    /**
     * The coordinator adds steps as the plan goes (`POST /runs/{id}/fleet/steps`) and says when it
     * is complete (`POST /runs/{id}/fleet/close`): after the last step so far, agents wait rather
     * than leave. What `--before-level` (a command between steps) and `--refine` (levels chosen
     * from the curve measured so far) need.
     */
    open: z.boolean().default(false),
    /** An open plan left waiting this long for its next step closes itself, so agents are not held for ever by a coordinator that died. */
    open_timeout_ms: z.number().int().min(1_000).max(3_600_000).default(600_000),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    for (const [i, s] of p.steps.entries()) {
      const key = fleetStepKey(s);
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['steps', i, 'level'], message: 'must not repeat a level (of the same run)' });
      seen.add(key);
    }
  });
export type FleetPlanBody = z.infer<typeof FleetPlanBody>;

/** More steps for an open plan, run after those already planned. */
export const FleetStepsBody = z.object({ steps: z.array(FleetPlanStep).min(1).max(1_000) });
export type FleetStepsBody = z.infer<typeof FleetStepsBody>;
export type FleetPlanInput = z.input<typeof FleetPlanBody>;

/** One NTP-style exchange: the agent sends t0 (its clock); the API answers when it received (t1) and sent (t2). */
export const ClockRequest = z.object({ t0: z.number().finite() });
export const ClockResponse = z.object({ t0: z.number(), t1: z.number(), t2: z.number() });
export type ClockResponse = z.infer<typeof ClockResponse>;

export const AgentJoinBody = z.object({
  agent_id: AgentId,
  host: z.string().max(255).superRefine(plainLine).meta(LINE).default(''),
  cores: z.number().int().positive().max(100_000).nullable().default(null),
  /** API clock minus the agent's clock, ms, from the exchange with the smallest round trip. */
  clock_offset_ms: z.number().finite().min(-86_400_000).max(86_400_000),
  clock_rtt_ms: z.number().finite().nonnegative().max(600_000),
});
export type AgentJoinBody = z.infer<typeof AgentJoinBody>;

export const AgentJoinResponse = z.object({
  agent_id: AgentId,
  plan: FleetPlanBody,
  heartbeat_ms: z.number().int().positive(),
});
export type AgentJoinResponse = z.infer<typeof AgentJoinResponse>;

/** Long poll for the agent's next step (also a heartbeat). */
export const NextStepBody = z.object({ after: z.number().int().min(-1), wait_ms: z.number().int().min(0).max(30_000).default(10_000) });

export const Assignment = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('step'),
    index: z.number().int().nonnegative(),
    /** The run the step's events go to (the plan's own, or one of its --repeat runs). */
    run_id: RunId,
    level: Level,
    /** This agent's share of the step's load. */
    load: z.number().positive(),
    /** When the step starts, on the API's clock. */
    barrier_at: EpochMs,
    warmup_ms: z.number().nonnegative(),
    duration_ms: z.number().positive(),
  }),
  z.object({ kind: z.literal('wait') }),
  z.object({ kind: z.literal('done') }),
]);
export type Assignment = z.infer<typeof Assignment>;

export const HeartbeatBody = z.object({ index: z.number().int().min(-1) });

export const AgentStepReport = z.object({
  index: z.number().int().nonnegative(),
  /** The agent's first send, converted to the API's clock. */
  started_at: IngestEpochMs,
  ended_at: IngestEpochMs,
  /** Requests the agent recorded in this step (warm-up included). */
  events: z.number().int().nonnegative(),
  health: StepHealth.nullable(),
});
export type AgentStepReport = z.infer<typeof AgentStepReport>;

export const AgentLeaveBody = z.object({
  /** Events the agent recorded over the whole run, and how many the API acknowledged. */
  recorded: z.number().int().nonnegative(),
  uploaded: z.number().int().nonnegative(),
  /** A plan over several runs (--repeat): what it recorded for each. */
  recorded_by_run: z.record(RunId, z.number().int().nonnegative()).optional(),
});

export const AgentOutcome = z.enum(['ok', 'lost', 'behind']);

/** One agent's part in one step, as recorded. */
export const FleetAgentStep = z.object({
  index: z.number().int().nonnegative(),
  level: z.number(),
  agent_id: z.string(),
  load: z.number(),
  barrier_at: z.number(),
  started_at: z.number().nullable(),
  ended_at: z.number().nullable(),
  events: z.number().nullable(),
  outcome: AgentOutcome,
  generator_limited: z.boolean().nullable(),
  reason: z.string().nullable(),
});
export type FleetAgentStep = z.infer<typeof FleetAgentStep>;

export const FleetAgent = z.object({
  agent_id: z.string(),
  host: z.string(),
  cores: z.number().nullable(),
  clock_offset_ms: z.number(),
  clock_rtt_ms: z.number(),
  joined_at: z.number(),
  state: z.enum(['joined', 'left', 'lost']),
  /** What the agent said it recorded when it left (null while it runs, or when it died). */
  recorded: z.number().nullable(),
  /** Events of the run stored under this agent's id. */
  stored: z.number(),
});
export type FleetAgent = z.infer<typeof FleetAgent>;

/** Who took part in a run, and how each step went for each of them: read from storage, any API process. */
export const RunAgents = z.object({
  agents: z.array(FleetAgent),
  steps: z.array(FleetAgentStep),
});
export type RunAgents = z.infer<typeof RunAgents>;

/** The coordinator's view while the plan runs (folded from the plan's facts in storage, by any API replica). */
export const FleetStatus = z.object({
  started: z.boolean(),
  done: z.boolean(),
  /** Index of the step under way or next, -1 before the first. */
  current: z.number().int(),
  /** The plan takes more steps (see FleetPlanBody.open). */
  open: z.boolean(),
  /** An open plan whose steps so far have all settled: it waits for the coordinator's next step or close. */
  awaiting_steps: z.boolean(),
  /** Steps in the plan so far, handed out or not. */
  planned: z.number().int(),
  agents: z.array(z.object({ agent_id: z.string(), state: z.enum(['waiting', 'active', 'lost', 'left']) })),
  steps: z.array(
    z.object({ index: z.number().int(), run_id: RunId, level: z.number(), barrier_at: z.number(), finished: z.boolean(), partial: z.boolean(), generator_limited: z.boolean(), reason: z.string().nullable() }),
  ),
});
export type FleetStatus = z.infer<typeof FleetStatus>;
