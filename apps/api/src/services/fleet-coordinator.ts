import type { FleetAgentRow, FleetStepRow } from '@kneeboard/clickhouse';
import { fleetStepKey, type AgentJoinBody, type AgentStepReport, type Assignment, type FleetPlanBody, type FleetPlanStep, type FleetStatus, type StepHealth, type StepWindow } from '@kneeboard/contracts';
import { HttpError } from '../errors.ts';
import { combineHealth, splitLoad, type AgentPart } from './fleet-split.ts';

/** Where settled facts go (ClickHouse in the app; a recorder in tests). */
export interface FleetSink {
  stepWindow(runId: string, window: StepWindow): Promise<void>;
  agentSteps(rows: FleetStepRow[]): Promise<void>;
  agent(row: FleetAgentRow): Promise<void>;
}

export interface FleetOptions {
  /** The API's clock, epoch ms (sub-millisecond). Agents measure their offset to this one. */
  now: () => number;
  /** How often silent agents are looked for. */
  checkEveryMs?: number;
  onError?: (err: unknown) => void;
}

type AgentState = 'waiting' | 'active' | 'lost' | 'left';

interface Agent {
  join: AgentJoinBody;
  joinedAt: number;
  state: AgentState;
  lastSeen: number;
  /** Long polls open right now: an agent waiting on one is alive. */
  polling: number;
}

interface Step {
  index: number;
  /** The run its events and window go to: the plan's, or one of its --repeat runs. */
  runId: string;
  level: number;
  load: number;
  barrierAt: number;
  shares: Map<string, number>;
  reports: Map<string, AgentStepReport>;
  lost: Map<string, string>;
  settled: boolean;
  partial: boolean;
  health: StepHealth | null;
}

interface Fleet {
  runId: string;
  plan: FleetPlanBody;
  agents: Map<string, Agent>;
  steps: Step[];
  done: boolean;
  doneAt: number | null;
  /** The coordinator may still add steps (plan.open until it closes the plan, or it times out). */
  open: boolean;
  /** Since when an open plan has had all its steps settled and waits for more. */
  awaitingSince: number | null;
  waiters: Set<() => void>;
  /** Storage writes of this run, in order. */
  writes: Promise<void>;
}

/** Runs whose plan ended this long ago are forgotten (what happened stays in storage). */
const FORGET_AFTER_MS = 3_600_000;
const HEARTBEAT_MS = 1_000;

/**
 * Holds the plans of runs driven by several agents, in this API process: who joined, each step's
 * shares and barrier, who reported, who went silent. A step settles when every agent with a share
 * reported or was declared dead; then the next step is handed out on a new barrier to the agents
 * alive at that moment (so an agent that joined late takes the next step). The coordinator and its
 * agents must reach this same process; events and step windows go through ordinary storage.
 */
export class FleetCoordinator {
  private readonly fleets = new Map<string, Fleet>();
  private readonly timer: NodeJS.Timeout;
  private lastCheck: number;

  constructor(
    private readonly sink: FleetSink,
    private readonly options: FleetOptions,
  ) {
    this.lastCheck = options.now();
    this.timer = setInterval(() => this.checkSilence(), options.checkEveryMs ?? 250);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    for (const f of this.fleets.values()) this.wake(f);
  }

  plan(runId: string, plan: FleetPlanBody): void {
    this.forgetOld();
    if (this.fleets.has(runId)) throw new HttpError(409, 'this run already has a plan', 'id');
    this.fleets.set(runId, {
      runId,
      plan,
      agents: new Map(),
      steps: [],
      done: false,
      doneAt: null,
      open: plan.open,
      awaitingSince: null,
      waiters: new Set(),
      writes: Promise.resolve(),
    });
  }

  /** More steps for an open plan; they run after the steps planned so far. */
  addSteps(runId: string, steps: FleetPlanStep[]): void {
    const fleet = this.fleet(runId);
    if (fleet.done || !fleet.open) throw new HttpError(409, 'this plan is closed: it takes no more steps', 'id');
    const keys = new Set(fleet.plan.steps.map(fleetStepKey));
    for (const [i, s] of steps.entries()) {
      if (keys.has(fleetStepKey(s))) throw new HttpError(400, `level ${s.level} is already in the plan for this run (its later window would replace the earlier one)`, `steps[${i}].level`);
      keys.add(fleetStepKey(s));
    }
    fleet.plan.steps.push(...steps);
    this.advance(fleet);
  }

  /** The plan is complete: once its steps have run, agents are told it is done. */
  closePlan(runId: string): void {
    const fleet = this.fleet(runId);
    fleet.open = false;
    this.advance(fleet);
  }

  /** One half of an NTP-style exchange: when the request arrived and when the answer leaves, on the API's clock. */
  clock(t0: number): { t0: number; t1: number; t2: number } {
    const t1 = this.options.now();
    return { t0, t1, t2: this.options.now() };
  }

  async join(runId: string, body: AgentJoinBody): Promise<{ plan: FleetPlanBody; heartbeat_ms: number }> {
    const fleet = this.fleet(runId);
    if (fleet.done) throw new HttpError(409, 'this run has finished its plan', 'id');
    if (fleet.agents.has(body.agent_id)) throw new HttpError(409, `agent ${body.agent_id} has already joined this run`, 'agent_id');
    const now = this.options.now();
    fleet.agents.set(body.agent_id, { join: body, joinedAt: now, state: 'waiting', lastSeen: now, polling: 0 });
    for (const run of this.runsOf(fleet)) await this.sink.agent(this.agentRow(fleet, body.agent_id, run));
    this.advance(fleet);
    return { plan: fleet.plan, heartbeat_ms: HEARTBEAT_MS };
  }

  /** The agent's next step after `after`, waiting up to waitMs for one; also a heartbeat. */
  async next(runId: string, agentId: string, after: number, waitMs: number): Promise<Assignment> {
    const fleet = this.fleet(runId);
    const agent = this.agent(fleet, agentId);
    const deadline = this.options.now() + waitMs;
    agent.polling += 1;
    try {
      for (;;) {
        agent.lastSeen = this.options.now();
        const found = this.assignmentFor(fleet, agentId, agent, after);
        if (found) return found;
        const left = deadline - this.options.now();
        if (left <= 0) return { kind: 'wait' };
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, left);
          function done() {
            clearTimeout(t);
            fleet.waiters.delete(done);
            resolve();
          }
          fleet.waiters.add(done);
        });
      }
    } finally {
      agent.polling -= 1;
    }
  }

  heartbeat(runId: string, agentId: string): void {
    const fleet = this.fleet(runId);
    this.agent(fleet, agentId).lastSeen = this.options.now();
  }

  report(runId: string, agentId: string, report: AgentStepReport): void {
    const fleet = this.fleet(runId);
    const agent = this.agent(fleet, agentId);
    agent.lastSeen = this.options.now();
    const step = fleet.steps[report.index];
    if (!step || !step.shares.has(agentId)) throw new HttpError(400, `agent ${agentId} has no share in step ${report.index}`, 'index');
    if (step.settled) return;
    step.reports.set(agentId, report);
    this.settleIfReady(fleet, step);
  }

  /** `recordedByRun`: a plan over several runs (--repeat) — what the agent recorded for each. */
  async leave(runId: string, agentId: string, recorded: number, recordedByRun?: Record<string, number>): Promise<void> {
    const fleet = this.fleet(runId);
    const agent = this.agent(fleet, agentId);
    if (agent.state !== 'lost') agent.state = 'left';
    const byRun = new Map(Object.entries(recordedByRun ?? {}).map(([id, n]) => [id.toLowerCase(), n]));
    for (const run of this.runsOf(fleet)) {
      const n = recordedByRun === undefined ? (run === fleet.runId ? recorded : null) : (byRun.get(run.toLowerCase()) ?? 0);
      await this.sink.agent({ ...this.agentRow(fleet, agentId, run), recorded: n });
    }
    // A step it had a share in and never reported cannot wait for it any more.
    for (const step of fleet.steps) {
      if (!step.settled && step.shares.has(agentId) && !step.reports.has(agentId)) {
        step.lost.set(agentId, 'left before reporting');
        this.settleIfReady(fleet, step);
      }
    }
    this.wake(fleet);
  }

  status(runId: string): FleetStatus {
    const fleet = this.fleet(runId);
    return {
      started: fleet.steps.length > 0,
      done: fleet.done,
      current: fleet.steps.length - 1,
      open: fleet.open,
      awaiting_steps: fleet.awaitingSince !== null && !fleet.done,
      planned: fleet.plan.steps.length,
      agents: [...fleet.agents.entries()].map(([agent_id, a]) => ({ agent_id, state: a.state })),
      steps: fleet.steps.map((s) => ({
        index: s.index,
        run_id: s.runId,
        level: s.level,
        barrier_at: s.barrierAt,
        finished: s.settled,
        partial: s.partial,
        generator_limited: s.health?.generator_limited ?? false,
        reason: s.health?.reason ?? null,
      })),
    };
  }

  /**
   * The run was deleted: its plan goes, at once. Left in place, its silent agents would be declared
   * lost and written as rows of a run that no longer exists (every 250 ms check could write more);
   * agents waiting on it are told the plan is done, later calls get the 404 of a run without a plan.
   */
  drop(runId: string): void {
    const fleet = this.fleets.get(runId);
    if (!fleet) return;
    this.fleets.delete(runId);
    fleet.done = true;
    fleet.open = false;
    fleet.doneAt ??= this.options.now();
    this.wake(fleet);
  }

  /** Resolves once every storage write of the run so far is done (tests, shutdown). */
  settled(runId: string): Promise<void> {
    return this.fleets.get(runId)?.writes ?? Promise.resolve();
  }

  private fleet(runId: string): Fleet {
    const f = this.fleets.get(runId);
    if (!f) throw new HttpError(404, 'this run has no plan for several agents on this API process (kneeboard sweep --agents N makes one)', 'id');
    return f;
  }

  private agent(fleet: Fleet, agentId: string): Agent {
    const a = fleet.agents.get(agentId);
    if (!a) throw new HttpError(404, `agent ${agentId} has not joined this run`, 'agent_id');
    return a;
  }

  private assignmentFor(fleet: Fleet, agentId: string, agent: Agent, after: number): Assignment | null {
    if (agent.state === 'lost' || agent.state === 'left') return { kind: 'done' };
    const step = fleet.steps.find((s) => s.index > after && s.shares.has(agentId));
    if (step) {
      return {
        kind: 'step',
        index: step.index,
        run_id: step.runId,
        level: step.level,
        load: step.shares.get(agentId)!,
        barrier_at: step.barrierAt,
        warmup_ms: fleet.plan.warmup_ms,
        duration_ms: fleet.plan.duration_ms,
      };
    }
    return fleet.done ? { kind: 'done' } : null;
  }

  private liveAgents(fleet: Fleet): string[] {
    return [...fleet.agents.entries()].filter(([, a]) => a.state === 'waiting' || a.state === 'active').map(([id]) => id);
  }

  /** Starts the next step when it may: the first once enough agents joined, each later one once the step before settled. */
  private advance(fleet: Fleet): void {
    if (fleet.done) return;
    const last = fleet.steps.at(-1);
    if (last ? !last.settled : this.liveAgents(fleet).length < fleet.plan.agents) return;
    this.schedule(fleet);
  }

  /** Hands out the next step of the plan to every agent alive now, on a barrier lead_ms ahead. */
  private schedule(fleet: Fleet): void {
    const index = fleet.steps.length;
    const planned = fleet.plan.steps[index];
    const live = this.liveAgents(fleet);
    if (!planned && fleet.open && live.length > 0) {
      // Agents keep long-polling (alive, not silent) while the coordinator prepares what comes next.
      fleet.awaitingSince ??= this.options.now();
      return;
    }
    if (!planned || live.length === 0) {
      fleet.done = true;
      fleet.doneAt = this.options.now();
      this.wake(fleet);
      return;
    }
    fleet.awaitingSince = null;
    for (const id of live) fleet.agents.get(id)!.state = 'active';
    const barrierAt = this.options.now() + fleet.plan.lead_ms;
    const step: Step = {
      index,
      runId: planned.run_id ?? fleet.runId,
      level: planned.level,
      load: planned.load,
      barrierAt,
      shares: splitLoad(planned.load, live, fleet.plan.load_model),
      reports: new Map(),
      lost: new Map(),
      settled: false,
      partial: false,
      health: null,
    };
    fleet.steps.push(step);
    // The open window goes out before any event of the step can arrive, so the ingest accepts them.
    this.write(fleet, () => this.sink.stepWindow(step.runId, { level: step.level, started_at: barrierAt, measure_from: barrierAt + fleet.plan.warmup_ms, ended_at: null }));
    this.wake(fleet);
  }

  private settleIfReady(fleet: Fleet, step: Step): void {
    if (step.settled) return;
    for (const id of step.shares.keys()) if (!step.reports.has(id) && !step.lost.has(id)) return;
    step.settled = true;
    const plan = fleet.plan;
    const parts: AgentPart[] = [];
    const rows: FleetStepRow[] = [];
    for (const [id, load] of step.shares) {
      const r = step.reports.get(id);
      const lateBy = r ? r.started_at - step.barrierAt : 0;
      const outcome = !r ? 'lost' : lateBy > plan.start_tolerance_ms ? 'behind' : 'ok';
      const note = !r ? (step.lost.get(id) ?? 'lost') : outcome === 'behind' ? `started ${Math.round(lateBy)} ms after the barrier` : null;
      parts.push({ agent_id: id, load, outcome, note, health: r?.health ?? null });
      rows.push({
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
    const { health, partial } = combineHealth(step.load, parts);
    step.health = health;
    step.partial = partial;
    const measureFrom = step.barrierAt + plan.warmup_ms;
    const ends = [...step.reports.values()].map((r) => r.ended_at);
    const endedAt = Math.max(measureFrom, ends.length > 0 ? Math.max(...ends) : measureFrom + plan.duration_ms);
    this.write(fleet, async () => {
      await this.sink.agentSteps(rows);
      await this.sink.stepWindow(step.runId, { level: step.level, started_at: step.barrierAt, measure_from: measureFrom, ended_at: endedAt, health });
    });
    if (step.index === fleet.steps.length - 1) this.advance(fleet);
  }

  /** Agents with a share in an unsettled step that have been silent past the timeout are dead. */
  private checkSilence(): void {
    const now = this.options.now();
    // When this process itself stalled (a long synchronous insert, a busy host), heartbeats wait
    // unread in its socket buffers: the stall is not the agents' silence.
    const stalled = Math.max(0, now - this.lastCheck - 2 * (this.options.checkEveryMs ?? 250));
    this.lastCheck = now;
    for (const fleet of this.fleets.values()) {
      if (fleet.awaitingSince !== null && !fleet.done && now - fleet.awaitingSince > fleet.plan.open_timeout_ms) {
        // The coordinator went quiet between steps: release the agents rather than hold them.
        this.options.onError?.(new Error(`run ${fleet.runId}: no next step or close for ${fleet.plan.open_timeout_ms / 1000} s; the plan is closed`));
        fleet.open = false;
        this.schedule(fleet);
      }
      for (const a of fleet.agents.values()) a.lastSeen = a.polling > 0 ? now : a.lastSeen + stalled;
      for (const step of fleet.steps) {
        if (step.settled) continue;
        for (const id of step.shares.keys()) {
          const a = fleet.agents.get(id)!;
          if (step.reports.has(id) || step.lost.has(id) || now - a.lastSeen <= fleet.plan.heartbeat_timeout_ms) continue;
          step.lost.set(id, `no heartbeat for ${(fleet.plan.heartbeat_timeout_ms / 1000).toFixed(1)} s`);
          a.state = 'lost';
          for (const run of this.runsOf(fleet)) this.write(fleet, () => this.sink.agent(this.agentRow(fleet, id, run)));
        }
        this.settleIfReady(fleet, step);
      }
    }
  }

  /** Every run the plan records into, its own first: agents are listed in each. */
  private runsOf(fleet: Fleet): string[] {
    return [...new Set([fleet.runId, ...fleet.plan.steps.map((s) => s.run_id ?? fleet.runId)])];
  }

  private agentRow(fleet: Fleet, agentId: string, runId = fleet.runId): FleetAgentRow {
    const a = fleet.agents.get(agentId)!;
    return {
      run_id: runId,
      agent_id: agentId,
      host: a.join.host,
      cores: a.join.cores,
      clock_offset_ms: a.join.clock_offset_ms,
      clock_rtt_ms: a.join.clock_rtt_ms,
      joined_at_ms: a.joinedAt,
      state: a.state === 'lost' ? 'lost' : a.state === 'left' ? 'left' : 'joined',
      recorded: null,
    };
  }

  private write(fleet: Fleet, fn: () => Promise<void>): void {
    fleet.writes = fleet.writes.then(fn).catch((err: unknown) => this.options.onError?.(err));
  }

  private wake(fleet: Fleet): void {
    for (const w of [...fleet.waiters]) w();
  }

  private forgetOld(): void {
    const now = this.options.now();
    for (const [id, f] of this.fleets) if (f.doneAt !== null && now - f.doneAt > FORGET_AFTER_MS) this.fleets.delete(id);
  }
}
