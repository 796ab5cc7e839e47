import { availableParallelism, hostname } from 'node:os';
import { createRecorder, wallClockMs } from '@kneeboard/agent-sdk';
import { ApiHttpError } from '@kneeboard/api-client';
import type { AgentJoinResponse, AgentStepReport, FleetRequest } from '@kneeboard/contracts';
import { formatClockMs, formatLevel, formatMs, formatQps } from '@kneeboard/contracts/figures';
import { AgentMonitor } from '../load/agent-monitor.ts';
import type { LevelSummary } from '../load/level-stats.ts';
import type { EngineChoice } from '../native/engine-binary.ts';
import { runStep, type StepContext } from '../sweep/run-step.ts';
import { DEFAULT_MAX_CONNECTIONS } from '../sweep/config.ts';
import { agentEngine, type AgentEngine } from './agent-engine.ts';
import { waitUntil } from './barrier.ts';
import { measureOffset, type ClockOffset } from './clock.ts';
import { FleetApi } from './fleet-api.ts';
import { FleetRecorder } from './fleet-recorder.ts';
import { sendOnceH2 } from '../load/h2-probe.ts';
import { UNTRUSTED_CERTIFICATE } from '../load/target-client.ts';
import { probeTarget } from '../sweep/preflight.ts';
import { SweepError } from '../sweep/sweep-error.ts';

export interface AgentOptions {
  api: string;
  runId: string;
  token?: string | undefined;
  agentId?: string | undefined;
  engine?: EngineChoice;
  threads?: number | undefined;
  engineBinary?: string | undefined;
  spoolDir?: string | null;
  /**
   * Pretends this host's clock is off by this many ms (tests only): every time the agent reads is
   * moved by it, as on a host whose clock is wrongly set; the measured offset must undo it.
   */
  clockSkewMs?: number;
  signal?: AbortSignal;
  say?: (line: string) => void;
  warn?: (line: string) => void;
}

export interface AgentPart {
  index: number;
  level: number;
  load: number;
  /** How far after the barrier this agent's first send left, ms (API clock). */
  lateMs: number;
  /** How long before the barrier the step reached this agent, ms (negative: after it). */
  aheadMs: number;
  summary: LevelSummary;
}

export interface AgentResult {
  agentId: string;
  clock: ClockOffset;
  parts: AgentPart[];
  recorded: number;
  uploaded: number;
}

/** Long polls last this long; the API holds them open until a step is handed out. */
const POLL_MS = 10_000;

/**
 * One load host of a run driven by several agents: measures its clock against the API's, joins,
 * then takes each step the API hands it — waits for the barrier on its own clock, drives its share
 * of the load, reports its part — until the plan is done; then delivers its events and leaves.
 */
export async function runAgent(o: AgentOptions): Promise<AgentResult> {
  const skew = o.clockSkewMs ?? 0;
  // The wall clock, as the API reads its own: an agent waiting for plans can live long, and a
  // monotonic clock anchored at start-up falls behind across a suspend (see fleet-storage.ts).
  const now = () => wallClockMs() + skew;
  const say = o.say ?? (() => {});
  const warn = o.warn ?? (() => {});
  const agentId = (o.agentId ?? `${hostname()}-${process.pid}`).slice(0, 128);
  const api = new FleetApi(o.api, o.runId, o.token);

  const clock = await measureOffset(async (t0) => api.clock(t0), now);
  say(`clock: API − this host = ${formatClockMs(clock.offsetMs)} ms (round trip ${formatClockMs(clock.rttMs)} ms, best of ${clock.samples})`);
  // An agent that cannot send the plan's request (no engine for it, the target unreachable from
  // here, its certificate not trusted) says why before it joins: the plan never counts on it, so
  // no step is scheduled for it to leave partial. An API without the preview (404) gets the check
  // right after the join, the agent leaving before the first step.
  const preview = await previewPlan(api);
  let setup = preview ? await checkedEngine(preview.plan.request, o, warn, 'did not join the run') : undefined;
  let joined: AgentJoinResponse;
  try {
    joined = await api.join({ agent_id: agentId, host: hostname(), cores: availableParallelism(), clock_offset_ms: clock.offsetMs, clock_rtt_ms: clock.rttMs });
  } catch (err) {
    setup?.dispose();
    throw err;
  }
  const plan = joined.plan;
  // Several beats per timeout, so one late beat on a busy host does not read as death.
  const heartbeatMs = Math.min(joined.heartbeat_ms, plan.heartbeat_timeout_ms / 4);
  if (!setup) {
    try {
      setup = await checkedEngine(plan.request, o, warn, 'left the run');
    } catch (err) {
      await api.leave(agentId, 0, 0).catch(() => undefined);
      throw err;
    }
  }
  // Engine times are this host's real clock; the skew (tests) and the offset take them to the API's.
  const toApiMs = skew + clock.offsetMs;
  // One recorder per run the plan records into: the plan's own, and each --repeat run.
  const recorders = new Map<string, FleetRecorder>();
  const recorderFor = async (runId: string): Promise<FleetRecorder> => {
    let r = recorders.get(runId);
    if (!r) {
      const inner = await createRecorder({ api: o.api, token: o.token, runId, agentId, spoolDir: o.spoolDir === undefined ? null : o.spoolDir, onWarning: warn });
      recorders.set(runId, (r = new FleetRecorder(inner, toApiMs)));
    }
    return r;
  };
  const recorder = await recorderFor(o.runId);
  const signal = o.signal ?? new AbortController().signal;
  const ctx: StepContext = {
    engine: setup.engine,
    recorder,
    reporter: {},
    monitor: new AgentMonitor(),
    origin: setup.origin,
    request: setup.request,
    mix: setup.mix,
    parseTiming: setup.parseTiming,
    loadModel: plan.load_model,
    arrivals: plan.arrivals,
    thinkTimeMs: plan.think_time_ms,
    maxConnections: DEFAULT_MAX_CONNECTIONS,
    warmupMs: plan.warmup_ms,
    durationMs: plan.duration_ms,
    levelCount: plan.steps.length,
    signal,
  };
  say(`joined run ${o.runId} as ${agentId} (${setup.engine.kind} engine); ${plan.steps.length} steps, ${plan.agents} agents expected`);

  const parts: AgentPart[] = [];
  // Whatever breaks the plan (the run deleted, the API gone for longer than FLEET_RETRY waits), what
  // this agent recorded is still delivered before it stops: the SDK retries until the API takes it.
  let broken: unknown;
  try {
    let after = -1;
    while (!signal.aborted) {
      const a = await api.next(agentId, after, POLL_MS);
      if (a.kind === 'done') break;
      if (a.kind === 'wait') continue;
      // The barrier is on the API's clock: on this host it is barrier − offset.
      const startLocal = a.barrier_at - clock.offsetMs;
      const aheadMs = startLocal - now();
      if (aheadMs < 0) warn(`step ${a.index + 1} reached this agent ${formatClockMs(-aheadMs)} ms after its barrier: raise --barrier-lead on the coordinator`);
      const stepRecorder = await recorderFor(a.run_id);
      await waitUntil(startLocal, now);
      const capture = stepRecorder.beginCapture();
      const beat = setInterval(() => void api.heartbeat(agentId, a.index, heartbeatMs).catch((err: unknown) => warn(`heartbeat: ${(err as Error).message}`)), heartbeatMs);
      let summary: LevelSummary;
      try {
        summary = await runStep({ ...ctx, recorder: stepRecorder, warmupMs: a.warmup_ms, durationMs: a.duration_ms }, a.level, a.load, a.index);
        // An open plan's coordinator decides the next steps from this one (--search, --refine): its
        // events are in the run before the step can settle (still beating: delivery can take a while).
        if (plan.open) await stepRecorder.flush();
      } finally {
        clearInterval(beat);
      }
      const startedAt = (capture.startedAt ?? wallClockMs()) + toApiMs;
      const report: AgentStepReport = {
        index: a.index,
        started_at: startedAt,
        ended_at: Math.max(startedAt, (capture.endedAt ?? wallClockMs()) + toApiMs),
        events: capture.events,
        health: summary.health,
      };
      await api.report(agentId, report);
      const lateMs = startedAt - a.barrier_at;
      parts.push({ index: a.index, level: a.level, load: a.load, lateMs, aheadMs, summary });
      say(
        `step ${a.index + 1}: level ${formatLevel(a.level)}, my share ${formatLevel(a.load)} · ${summary.requests} requests · ${formatQps(summary.qps)} req/s · ` +
          `p50 ${formatMs(summary.p50_ms)} ms · started ${formatClockMs(lateMs)} ms after the barrier${summary.health.generator_limited ? ' · GENERATOR-LIMITED' : ''}`,
      );
      after = a.index;
    }
  } catch (err) {
    broken = err;
  } finally {
    setup.dispose();
  }
  await Promise.all([...recorders.values()].map((r) => r.flush()));
  const byRun = new Map([...recorders].map(([runId, r]) => [runId, r.stats()]));
  const stats = { recorded: 0, uploaded: 0 };
  for (const s of byRun.values()) {
    stats.recorded += s.recorded;
    stats.uploaded += s.uploaded;
  }
  if (broken !== undefined) throw new Error(`${planBroken(broken)}; ${stats.uploaded} of ${stats.recorded} recorded requests delivered`);
  const recordedByRun = byRun.size > 1 ? Object.fromEntries([...byRun].map(([runId, s]) => [runId, s.recorded])) : undefined;
  await api.leave(agentId, stats.recorded, stats.uploaded, recordedByRun);
  return { agentId, clock, parts, recorded: stats.recorded, uploaded: stats.uploaded };
}

/** The plan a join would hand out, or null from an API without the preview (or no plan: the join then says so). */
async function previewPlan(api: FleetApi): Promise<Pick<AgentJoinResponse, 'plan'> | null> {
  try {
    return await api.preview();
  } catch (err) {
    if (err instanceof ApiHttpError && err.status === 404) return null;
    throw err;
  }
}

/** The engine for the plan's request, once one request of it was answered (`outcome`: what the agent did on failing). */
async function checkedEngine(request: FleetRequest, o: AgentOptions, warn: (line: string) => void, outcome: string): Promise<AgentEngine> {
  const setup = agentEngine(request, o.engine ?? 'auto', o.threads, o.engineBinary);
  if (setup.note) warn(setup.note);
  const target = new URL(request.target);
  if (request.insecure && target.protocol === 'https:') warn(`the plan says --insecure: the certificate of ${target.host} is not checked; anyone in between could answer for it`);
  try {
    await probePlanTarget(target, setup, request.http, warn, outcome);
  } catch (err) {
    setup.dispose();
    throw err;
  }
  return setup;
}

/**
 * One request of the plan (its mix's first), as a one-agent sweep's preflight sends it. No answer —
 * the target unreachable from this host, its certificate not trusted — is fatal; an error status
 * only warned of (a late joiner may find the target busy with the others).
 */
async function probePlanTarget(target: URL, setup: AgentEngine, http: '1.1' | '2' | 'auto', warn: (line: string) => void, outcome: string): Promise<void> {
  try {
    await probeTarget(target, setup.mix ? setup.mix.requests[0]! : setup.request, setup.parseTiming, http === '2' ? sendOnceH2 : undefined);
  } catch (err) {
    if (!(err instanceof SweepError)) throw err;
    if (err.kind === 'target-rejected') return warn(err.message);
    // The trust flags are the coordinator's: this agent takes them from the plan.
    const fix = err.message.includes(UNTRUSTED_CERTIFICATE) ? ' — to the coordinator (`kneeboard sweep … --agents N`), whose plan hands them to every agent' : '';
    throw new SweepError(err.kind, `the plan's target: ${err.message}${fix}; this agent ${outcome}`, { cause: err });
  }
}

/** Why the plan stopped for this agent, in the user's terms. */
function planBroken(err: unknown): string {
  if (err instanceof ApiHttpError && err.status === 404) {
    return 'the API no longer holds this run\'s plan (the run was deleted): this agent stops';
  }
  return `lost the API mid-plan (${(err as Error).message}): this agent stops`;
}
