import { z } from 'zod';
import type { FleetAgentRow, FleetStepRow } from '@kneeboard/clickhouse';
import { AgentJoinBody, AgentStepReport, FleetPlanBody, FleetPlanStep, fleetStepKey, type Assignment, type FleetStatus, type StepHealth, type StepWindow } from '@kneeboard/contracts';
import { formatSeconds } from '@kneeboard/contracts/figures';
import { combineHealth, splitLoad, type AgentPart } from './fleet-split.ts';

/**
 * The fleet plan as a pure state machine: no I/O, no timers, no clock of its own. A plan is the
 * facts that made it (the coordinator's plan, steps and close; agents' joins, reports and leaves;
 * losses the silence rule found; API restarts; effects written to storage), each stamped with the
 * time a replica accepted it. `fold` turns them, in (at, id) order, into the state — the same on
 * every replica that reads the same facts, so every decision that follows from them (which agents
 * share a step, its barrier, when the plan is done) is made identically everywhere and never
 * stored on its own. Only what depends on the reader's clock (an agent's silence, an open plan
 * left waiting) is decided by `tick` and becomes a fact.
 */

export const FleetFact = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('plan'), plan: FleetPlanBody }),
  z.object({ kind: z.literal('steps'), steps: z.array(FleetPlanStep) }),
  z.object({ kind: z.literal('close') }),
  z.object({ kind: z.literal('join'), join: AgentJoinBody }),
  z.object({ kind: z.literal('report'), agent_id: z.string(), report: AgentStepReport }),
  z.object({ kind: z.literal('leave'), agent_id: z.string(), recorded: z.number(), recorded_by_run: z.record(z.string(), z.number()).optional() }),
  /** The silence rule: the agent had a share in step `index` and was not heard from in time. */
  z.object({ kind: z.literal('lost'), agent_id: z.string(), index: z.number().int(), reason: z.string() }),
  /** An open plan waited past its open_timeout_ms for the coordinator: it closes itself. */
  z.object({ kind: z.literal('expire') }),
  /**
   * An API process started while the plan ran: the step under way is marked partial, silence is
   * counted from here. `booted_at` is when that process started: a fact logged after it means
   * another replica served the plan meanwhile (one replica of several restarting is not the API
   * restarting), and the restart changes nothing.
   */
  z.object({ kind: z.literal('restart'), booted_at: z.number().optional() }),
  /** An effect (a step window, an agent's rows) is in storage. */
  z.object({ kind: z.literal('written'), key: z.string() }),
]);
export type FleetFact = z.infer<typeof FleetFact>;

/** A fact as logged: `at` is the API's clock (epoch ms) when a replica accepted it; `id` orders ties. */
export interface LoggedFact {
  at: number;
  id: string;
  fact: FleetFact;
}

/** A command the machine refuses, in HTTP terms (the shell turns it into the answer). */
export class FleetRefusal extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

export type AgentState = 'waiting' | 'active' | 'lost' | 'left';

export interface FleetAgent {
  join: AgentJoinBody;
  joinedAt: number;
  state: AgentState;
  /** What it said it recorded when it left (null until then). */
  recorded: number | null;
  recordedByRun: Record<string, number> | undefined;
}

export interface FleetStep {
  index: number;
  /** The run its events and window go to: the plan's, or one of its --repeat runs. */
  runId: string;
  level: number;
  load: number;
  barrierAt: number;
  shares: Map<string, number>;
  reports: Map<string, AgentStepReport>;
  lost: Map<string, string>;
  /** An API process started while it was under way. */
  interrupted: boolean;
  settled: boolean;
  partial: boolean;
  health: StepHealth | null;
  /** Once settled: its window as stored, and each agent's part. */
  window: StepWindow | null;
  rows: FleetStepRow[];
}

export interface FleetState {
  runId: string;
  plan: FleetPlanBody;
  agents: Map<string, FleetAgent>;
  steps: FleetStep[];
  done: boolean;
  /** The coordinator may still add steps (plan.open until it closes the plan, or it times out). */
  open: boolean;
  /** Since when an open plan has had all its steps settled and waits for more. */
  awaitingSince: number | null;
  /** The latest API start while the plan ran: no agent is judged silent for time before it. */
  restartedAt: number | null;
  /** Effects already in storage. */
  written: Set<string>;
  /** The newest fact's time: a new fact is stamped after it, so it folds after everything its writer saw. */
  lastAt: number;
}

const byTime = (a: LoggedFact, b: LoggedFact) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The plan's state from its facts (any order); null when no plan was made. */
export function fold(runId: string, facts: readonly LoggedFact[]): FleetState | null {
  let state: FleetState | null = null;
  for (const f of [...facts].sort(byTime)) {
    if (state === null) {
      if (f.fact.kind === 'plan') state = newPlan(runId, f.fact.plan, f.at);
      continue;
    }
    apply(state, f);
  }
  return state;
}

function newPlan(runId: string, plan: FleetPlanBody, at: number): FleetState {
  return {
    runId,
    plan: { ...plan, steps: [...plan.steps] },
    agents: new Map(),
    steps: [],
    done: false,
    open: plan.open,
    awaitingSince: null,
    restartedAt: null,
    written: new Set(),
    lastAt: at,
  };
}

/** One fact more (mutates the state it is given). A fact that no longer applies — a second join, a late report — changes nothing. */
export function apply(s: FleetState, { at, fact }: LoggedFact): void {
  const before = s.lastAt;
  s.lastAt = Math.max(s.lastAt, at);
  switch (fact.kind) {
    case 'plan':
      return; // the first plan holds
    case 'steps': {
      if (s.done || !s.open) return;
      const keys = new Set(s.plan.steps.map(fleetStepKey));
      for (const step of fact.steps) {
        if (keys.has(fleetStepKey(step))) continue;
        s.plan.steps.push(step);
        keys.add(fleetStepKey(step));
      }
      return advance(s, at);
    }
    case 'close':
      s.open = false;
      return advance(s, at);
    case 'join':
      if (s.done || s.agents.has(fact.join.agent_id)) return;
      s.agents.set(fact.join.agent_id, { join: fact.join, joinedAt: at, state: 'waiting', recorded: null, recordedByRun: undefined });
      return advance(s, at);
    case 'report': {
      const step = s.steps[fact.report.index];
      if (!step || step.settled || !step.shares.has(fact.agent_id) || step.reports.has(fact.agent_id) || step.lost.has(fact.agent_id)) return;
      step.reports.set(fact.agent_id, fact.report);
      return settleIfReady(s, step, at);
    }
    case 'leave': {
      const agent = s.agents.get(fact.agent_id);
      if (!agent || agent.recorded !== null) return;
      if (agent.state !== 'lost') agent.state = 'left';
      agent.recorded = fact.recorded;
      agent.recordedByRun = fact.recorded_by_run;
      // A step it had a share in and never reported cannot wait for it any more.
      for (const step of s.steps) {
        if (!step.settled && step.shares.has(fact.agent_id) && !step.reports.has(fact.agent_id) && !step.lost.has(fact.agent_id)) {
          step.lost.set(fact.agent_id, 'left before reporting');
          settleIfReady(s, step, at);
        }
      }
      return;
    }
    case 'lost': {
      const step = s.steps[fact.index];
      const agent = s.agents.get(fact.agent_id);
      if (!step || !agent || step.settled || !step.shares.has(fact.agent_id) || step.reports.has(fact.agent_id) || step.lost.has(fact.agent_id)) return;
      step.lost.set(fact.agent_id, fact.reason);
      if (agent.state !== 'left') agent.state = 'lost';
      return settleIfReady(s, step, at);
    }
    case 'expire':
      if (s.awaitingSince === null || s.done) return;
      s.open = false;
      return schedule(s, at);
    case 'restart':
      // Some replica logged a fact while this one was starting: the API was up, nothing was cut through.
      if (fact.booted_at !== undefined && before > fact.booted_at) return;
      s.restartedAt = at;
      for (const step of s.steps) if (!step.settled) step.interrupted = true;
      return;
    case 'written':
      s.written.add(fact.key);
      return;
  }
}

const liveAgents = (s: FleetState) => [...s.agents.entries()].filter(([, a]) => a.state === 'waiting' || a.state === 'active').map(([id]) => id);

/** Starts the next step when it may: the first once enough agents joined, each later one once the step before settled. */
function advance(s: FleetState, at: number): void {
  if (s.done) return;
  const last = s.steps.at(-1);
  if (last ? !last.settled : liveAgents(s).length < s.plan.agents) return;
  schedule(s, at);
}

/** Hands out the next step of the plan to every agent alive now, on a barrier lead_ms after the fact that started it. */
function schedule(s: FleetState, at: number): void {
  const index = s.steps.length;
  const planned = s.plan.steps[index];
  const live = liveAgents(s);
  if (!planned && s.open && live.length > 0) {
    // Agents keep polling (alive, not silent) while the coordinator prepares what comes next.
    s.awaitingSince ??= at;
    return;
  }
  if (!planned || live.length === 0) {
    s.done = true;
    return;
  }
  s.awaitingSince = null;
  for (const id of live) s.agents.get(id)!.state = 'active';
  s.steps.push({
    index,
    runId: planned.run_id ?? s.runId,
    level: planned.level,
    load: planned.load,
    barrierAt: at + s.plan.lead_ms,
    shares: splitLoad(planned.load, live, s.plan.load_model),
    reports: new Map(),
    lost: new Map(),
    interrupted: false,
    settled: false,
    partial: false,
    health: null,
    window: null,
    rows: [],
  });
}

const RESTART_NOTE = 'partial step: the API restarted while it ran';

function settleIfReady(s: FleetState, step: FleetStep, at: number): void {
  if (step.settled) return;
  for (const id of step.shares.keys()) if (!step.reports.has(id) && !step.lost.has(id)) return;
  step.settled = true;
  const plan = s.plan;
  const parts: AgentPart[] = [];
  for (const [id, load] of step.shares) {
    const r = step.reports.get(id);
    const lateBy = r ? r.started_at - step.barrierAt : 0;
    const outcome = !r ? 'lost' : lateBy > plan.start_tolerance_ms ? 'behind' : 'ok';
    const note = !r ? (step.lost.get(id) ?? 'lost') : outcome === 'behind' ? `started ${Math.round(lateBy)} ms after the barrier` : null;
    parts.push({ agent_id: id, load, outcome, note, health: r?.health ?? null });
    step.rows.push({
      run_id: step.runId,
      step_index: step.index,
      level: step.level,
      agent_id: id,
      load,
      barrier_at_ms: step.barrierAt,
      started_at_ms: r?.started_at ?? null,
      ended_at_ms: r?.ended_at ?? null,
      events: r?.events ?? null,
      outcome,
      generator_limited: r?.health ? Number(r.health.generator_limited) : null,
      health_reason: note ?? r?.health?.reason ?? null,
    });
  }
  const combined = combineHealth(step.load, parts);
  // A step an API restart cut through is not comparable either: the API could not watch all of it.
  const health = step.interrupted
    ? { ...combined.health, generator_limited: true, reason: [RESTART_NOTE, combined.health.reason].filter((x) => x !== null).join(' · ').slice(0, 500) }
    : combined.health;
  step.health = health;
  step.partial = combined.partial || step.interrupted;
  const measureFrom = step.barrierAt + plan.warmup_ms;
  const ends = [...step.reports.values()].map((r) => r.ended_at);
  const endedAt = Math.max(measureFrom, ends.length > 0 ? Math.max(...ends) : measureFrom + plan.duration_ms);
  step.window = { level: step.level, started_at: step.barrierAt, measure_from: measureFrom, ended_at: endedAt, health };
  if (step.index === s.steps.length - 1) advance(s, at);
}

// ——— commands: what a request adds to the log, or why it is refused ———

const NO_PLAN = 'this run has no plan for several agents (kneeboard sweep --agents N makes one)';

export function mustHave(s: FleetState | null): FleetState {
  if (!s) throw new FleetRefusal(404, NO_PLAN, 'id');
  return s;
}

export function mustHaveAgent(s: FleetState, agentId: string): FleetAgent {
  const a = s.agents.get(agentId);
  if (!a) throw new FleetRefusal(404, `agent ${agentId} has not joined this run`, 'agent_id');
  return a;
}

export function planFacts(s: FleetState | null, plan: FleetPlanBody): FleetFact[] {
  if (s) throw new FleetRefusal(409, 'this run already has a plan', 'id');
  return [{ kind: 'plan', plan }];
}

export function addStepsFacts(s: FleetState | null, steps: FleetPlanStep[]): FleetFact[] {
  const state = mustHave(s);
  if (state.done || !state.open) throw new FleetRefusal(409, 'this plan is closed: it takes no more steps', 'id');
  const keys = new Set(state.plan.steps.map(fleetStepKey));
  for (const [i, step] of steps.entries()) {
    if (keys.has(fleetStepKey(step))) throw new FleetRefusal(400, `level ${step.level} is already in the plan for this run (its later window would replace the earlier one)`, `steps[${i}].level`);
    keys.add(fleetStepKey(step));
  }
  return [{ kind: 'steps', steps }];
}

export function closeFacts(s: FleetState | null): FleetFact[] {
  mustHave(s);
  return [{ kind: 'close' }];
}

export function joinFacts(s: FleetState | null, join: AgentJoinBody): FleetFact[] {
  const state = mustHave(s);
  if (state.done) throw new FleetRefusal(409, 'this run has finished its plan', 'id');
  if (state.agents.has(join.agent_id)) throw new FleetRefusal(409, `agent ${join.agent_id} has already joined this run`, 'agent_id');
  return [{ kind: 'join', join }];
}

export function reportFacts(s: FleetState | null, agentId: string, report: AgentStepReport): FleetFact[] {
  const state = mustHave(s);
  mustHaveAgent(state, agentId);
  const step = state.steps[report.index];
  if (!step || !step.shares.has(agentId)) throw new FleetRefusal(400, `agent ${agentId} has no share in step ${report.index}`, 'index');
  // A report sent again (its answer was lost) or after the step settled changes nothing.
  return step.settled || step.reports.has(agentId) ? [] : [{ kind: 'report', agent_id: agentId, report }];
}

export function leaveFacts(s: FleetState | null, agentId: string, recorded: number, recordedByRun?: Record<string, number>): FleetFact[] {
  const agent = mustHaveAgent(mustHave(s), agentId);
  if (agent.recorded !== null) return []; // a leave sent again
  return [{ kind: 'leave', agent_id: agentId, recorded, ...(recordedByRun ? { recorded_by_run: recordedByRun } : {}) }];
}

// ——— the clock's part: silence and waiting, judged by whoever reads ———

export interface TickInput {
  now: number;
  /** When each agent was last heard from (heartbeats, polls), by any replica. */
  seen: ReadonlyMap<string, number>;
  /** No silence before this (the reading process's own start: it could not hear anyone before). */
  heardFrom: number;
}

/** Facts the time has made true: agents silent past heartbeat_timeout_ms in a step under way, an open plan left waiting past open_timeout_ms. */
export function tick(s: FleetState, { now, seen, heardFrom }: TickInput): FleetFact[] {
  if (s.done) return [];
  const facts: FleetFact[] = [];
  if (s.awaitingSince !== null && now - s.awaitingSince > s.plan.open_timeout_ms) facts.push({ kind: 'expire' });
  const timeout = s.plan.heartbeat_timeout_ms;
  for (const step of s.steps) {
    if (step.settled) continue;
    for (const id of step.shares.keys()) {
      if (step.reports.has(id) || step.lost.has(id)) continue;
      const agent = s.agents.get(id)!;
      // Nobody beats before the barrier (agents wait for it): silence counts from it at the earliest.
      const last = Math.max(seen.get(id) ?? -Infinity, agent.joinedAt, step.barrierAt, s.restartedAt ?? -Infinity, heardFrom);
      if (now - last > timeout) facts.push({ kind: 'lost', agent_id: id, index: step.index, reason: `no heartbeat for ${formatSeconds(timeout / 1000)} s` });
    }
  }
  return facts;
}

// ——— effects: what storage must hold, reconciled by whoever reads ———

export type FleetEffect =
  | { key: string; kind: 'window'; runId: string; window: StepWindow }
  | { key: string; kind: 'agent-steps'; runId: string; rows: FleetStepRow[]; window: StepWindow }
  | { key: string; kind: 'agents'; rows: FleetAgentRow[] };

const openKey = (index: number) => `open:${index}`;
const settleKey = (index: number) => `settle:${index}`;

/** Every run the plan records into, its own first: agents are listed in each. */
export function runsOf(s: FleetState): string[] {
  return [...new Set([s.runId, ...s.plan.steps.map((step) => step.run_id ?? s.runId)])];
}

function agentRows(s: FleetState, id: string, a: FleetAgent): FleetAgentRow[] {
  const byRun = new Map(Object.entries(a.recordedByRun ?? {}).map(([run, n]) => [run.toLowerCase(), n]));
  return runsOf(s).map((run) => ({
    run_id: run,
    agent_id: id,
    host: a.join.host,
    cores: a.join.cores,
    clock_offset_ms: a.join.clock_offset_ms,
    clock_rtt_ms: a.join.clock_rtt_ms,
    joined_at_ms: a.joinedAt,
    state: a.state === 'lost' ? 'lost' : a.state === 'left' ? 'left' : 'joined',
    recorded: a.recorded === null ? null : a.recordedByRun === undefined ? (run === s.runId ? a.recorded : null) : (byRun.get(run.toLowerCase()) ?? 0),
  }));
}

/**
 * What the state says storage holds and it does not yet: a step's open window (before any agent is
 * handed the step, so the ingest takes its events), a settled step's parts and closed window, each
 * agent's row as it now stands. Writing one twice is harmless (newest version wins).
 */
export function pendingEffects(s: FleetState): FleetEffect[] {
  const out: FleetEffect[] = [];
  for (const [id, a] of s.agents) {
    const rows = agentRows(s, id, a);
    const key = `agent:${id}:${rows[0]!.state}:${a.recorded ?? ''}`;
    if (!s.written.has(key)) out.push({ key, kind: 'agents', rows });
  }
  for (const step of s.steps) {
    if (step.settled) {
      if (!s.written.has(settleKey(step.index))) out.push({ key: settleKey(step.index), kind: 'agent-steps', runId: step.runId, rows: step.rows, window: step.window! });
    } else if (!s.written.has(openKey(step.index))) {
      const window = { level: step.level, started_at: step.barrierAt, measure_from: step.barrierAt + s.plan.warmup_ms, ended_at: null };
      out.push({ key: openKey(step.index), kind: 'window', runId: step.runId, window });
    }
  }
  return out;
}

// ——— views ———

/**
 * A step's open window while storage may not have it yet (not recorded as written): whoever hands
 * the step out writes it first, so the ingest takes the step's events. Null once written, or settled.
 */
export function unwrittenWindow(s: FleetState, index: number): FleetEffect | null {
  return pendingEffects(s).find((e) => e.key === openKey(index)) ?? null;
}

/** The agent's next step after `after` (see unwrittenWindow); `done` when there is none to come; null: wait. */
export function assignmentFor(s: FleetState, agentId: string, after: number): Assignment | null {
  const agent = mustHaveAgent(s, agentId);
  if (agent.state === 'lost' || agent.state === 'left') return { kind: 'done' };
  const step = s.steps.find((x) => x.index > after && x.shares.has(agentId));
  if (step) {
    return {
      kind: 'step',
      index: step.index,
      run_id: step.runId,
      level: step.level,
      load: step.shares.get(agentId)!,
      barrier_at: step.barrierAt,
      warmup_ms: s.plan.warmup_ms,
      duration_ms: s.plan.duration_ms,
    };
  }
  return s.done ? { kind: 'done' } : null;
}

export function statusOf(s: FleetState): FleetStatus {
  return {
    started: s.steps.length > 0,
    done: s.done,
    current: s.steps.length - 1,
    open: s.open,
    awaiting_steps: s.awaitingSince !== null && !s.done,
    planned: s.plan.steps.length,
    agents: [...s.agents.entries()].map(([agent_id, a]) => ({ agent_id, state: a.state })),
    steps: s.steps.map((step) => ({
      index: step.index,
      run_id: step.runId,
      level: step.level,
      barrier_at: step.barrierAt,
      finished: step.settled,
      partial: step.partial,
      generator_limited: step.health?.generator_limited ?? false,
      reason: step.health?.reason ?? null,
    })),
  };
}
