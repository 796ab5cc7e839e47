import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentJoinBody, AgentStepReport, Assignment, FleetPlanBody, FleetPlanStep, FleetStatus } from '@kneeboard/contracts';
import { HttpError } from '../errors.ts';
import {
  addStepsFacts,
  apply,
  assignmentFor,
  closeFacts,
  fold,
  FleetRefusal,
  joinFacts,
  leaveFacts,
  mustHave,
  mustHaveAgent,
  pendingEffects,
  planFacts,
  reportFacts,
  statusOf,
  tick,
  unwrittenWindow,
  type FleetEffect,
  type FleetFact,
  type FleetState,
  type LoggedFact,
} from './fleet-machine.ts';

/**
 * Where the plan lives (ClickHouse in the app, see fleet-storage.ts): its facts, when each agent was
 * last heard from, and the effects the facts call for. Every method may be called by any replica.
 */
export interface FleetStore {
  append(runId: string, facts: readonly LoggedFact[]): Promise<void>;
  /** Every fact of the run's plan; facts that do not parse are left out (and reported). */
  read(runId: string): Promise<LoggedFact[]>;
  markSeen(runId: string, agentIds: readonly string[], at: number): Promise<void>;
  seen(runId: string): Promise<Map<string, number>>;
  /** Runs with a plan fact at or after `since`: what a starting process may have to resume. */
  recentPlans(since: number): Promise<string[]>;
  /** The run is being or was deleted: its plan answers as none, and nothing more is written for it. */
  isDeleted(runId: string): boolean;
  write(effect: FleetEffect): Promise<void>;
}

export interface FleetOptions {
  /** The API's clock, epoch ms (sub-millisecond). Agents measure their offset to this one. */
  now: () => number;
  /** How often the plans this process has seen are looked at for silent agents. */
  checkEveryMs?: number;
  /**
   * When this process started (epoch ms; the construction time when not given): anything stored
   * about a plan after it was written by another replica, which was serving while this one started.
   */
  bootedAt?: number;
  onError?: (err: unknown) => void;
}

const HEARTBEAT_MS = 1_000;
/** A process starting up resumes the plans with a fact this recent (longer than any plan waits: open_timeout_ms ≤ 1 h). */
const RESUME_WINDOW_MS = 6 * 3_600_000;
/** Plans not asked about for this long are no longer looked at by this process (what happened stays in storage). */
const FORGET_AFTER_MS = 3_600_000;
/** A poll for the next step reads storage again after this long at first, backing off to the most. */
const POLL_FIRST_MS = 20;
const POLL_MOST_MS = 150;

/**
 * The HTTP and storage shell of the fleet plan (the rules are in fleet-machine.ts). Nothing of a
 * plan is held in this process: each request reads the run's facts, folds them, checks its command
 * against the state, and appends what it adds — so any replica answers the coordinator and the
 * agents, and a restarted process picks the plan up where storage has it. What this process keeps
 * is only how to be quick: one command at a time per run (replicas agree through the log's order),
 * wake-ups for the polls it holds, and the plans it looks at for silence.
 */
export class FleetCoordinator {
  private readonly watched = new Map<string, number>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly effects = new Map<string, Promise<void>>();
  /** Effects this process wrote while passes of a run were queued: a later pass from an older state skips them. */
  private readonly written = new Map<string, Set<string>>();
  private readonly waiters = new Map<string, Set<() => void>>();
  /**
   * When this process last heard from each agent (`run\nagent`), ahead of its seen row landing in
   * storage: on a busy engine that insert may be slower than the heartbeat timeout.
   */
  private readonly heard = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private readonly startedAt: number;
  private readonly bootedAt: number;
  private lastCheck: number;
  private checking = false;

  constructor(
    private readonly store: FleetStore,
    private readonly options: FleetOptions,
  ) {
    this.startedAt = options.now();
    this.bootedAt = options.bootedAt ?? this.startedAt;
    this.lastCheck = this.startedAt;
    this.timer = setInterval(() => void this.checkSilence(), options.checkEveryMs ?? 250);
    this.timer.unref();
  }

  /**
   * Before this process serves anyone: every plan still under way gets a `restart` fact, so the
   * step in flight when an API process died is marked partial and its agents are judged silent
   * only from now. Not fatal: with storage down the plans are picked up as their agents call.
   */
  async start(): Promise<void> {
    try {
      for (const runId of await this.store.recentPlans(this.options.now() - RESUME_WINDOW_MS)) {
        if (this.store.isDeleted(runId)) continue;
        const state = fold(runId, await this.store.read(runId));
        if (!state || state.done) continue;
        this.watch(runId);
        if (await this.servedSince(runId, state, this.bootedAt)) continue;
        await this.append(runId, state, [{ kind: 'restart', booted_at: this.bootedAt }]);
      }
    } catch (err) {
      this.options.onError?.(err);
    }
  }

  /**
   * Another replica answered the plan's agents or logged its facts after `since`: the API as a whole
   * never stopped (a rolling restart, or a second replica starting after the first resumed the plan),
   * so this process starting cuts through nothing. The fold checks the same for facts (a replica may
   * log one between this read and the restart fact); the agents' signs of life are only known here.
   */
  private async servedSince(runId: string, state: FleetState, since: number): Promise<boolean> {
    if (state.lastAt > since) return true;
    for (const at of (await this.store.seen(runId)).values()) if (at > since) return true;
    return false;
  }

  close(): void {
    clearInterval(this.timer);
    for (const runId of this.waiters.keys()) this.wake(runId);
  }

  async plan(runId: string, plan: FleetPlanBody): Promise<void> {
    await this.command(runId, (s) => planFacts(s, plan));
  }

  /** More steps for an open plan; they run after the steps planned so far. */
  async addSteps(runId: string, steps: FleetPlanStep[]): Promise<void> {
    await this.command(runId, (s) => addStepsFacts(s, steps));
  }

  /** The plan is complete: once its steps have run, agents are told it is done. */
  async closePlan(runId: string): Promise<void> {
    await this.command(runId, (s) => closeFacts(s));
  }

  /** One half of an NTP-style exchange: when the request arrived and when the answer leaves, on the API's clock. */
  clock(t0: number): { t0: number; t1: number; t2: number } {
    const t1 = this.options.now();
    return { t0, t1, t2: this.options.now() };
  }

  /** The plan as a join would hand it out, nothing written: an agent checks it can send its request before joining. */
  async preview(runId: string): Promise<{ plan: FleetPlanBody }> {
    const state = await this.load(runId);
    return { plan: this.refuse(() => mustHave(state)).plan };
  }

  async join(runId: string, body: AgentJoinBody): Promise<{ plan: FleetPlanBody; heartbeat_ms: number }> {
    const state = await this.command(runId, (s) => joinFacts(s, body));
    // Its row is in storage before it is told it joined (GET /runs/{id}/agents lists it at once).
    await this.reconcile(runId, state);
    return { plan: state.plan, heartbeat_ms: HEARTBEAT_MS };
  }

  /**
   * The agent's next step after `after`, waiting up to waitMs for one; also a heartbeat. The wait
   * reads storage again and again (backing off, and at once when this process adds a fact to the
   * run), so the step may come from any replica; an agent waiting here is heard from all along.
   */
  async next(runId: string, agentId: string, after: number, waitMs: number): Promise<Assignment> {
    let state = await this.load(runId);
    this.refuse(() => mustHaveAgent(mustHave(state), agentId));
    const deadline = this.options.now() + waitMs;
    const beatEvery = mustHave(state).plan.heartbeat_timeout_ms / 3;
    let beatAt = this.options.now();
    await this.seenNow(runId, agentId, beatAt);
    let pause = POLL_FIRST_MS;
    for (;;) {
      // The run deleted (or its plan gone) while the agent waited: it is told the plan is done.
      if (!state) return { kind: 'done' };
      const found = this.refuse(() => assignmentFor(state!, agentId, after));
      const now = this.options.now();
      this.hear(runId, agentId, now);
      if (found) {
        // Its window is in storage before the agent can send an event of it (an upsert: harmless twice).
        const window = found.kind === 'step' ? unwrittenWindow(state, found.index) : null;
        if (window) await this.store.write(window);
        return found;
      }
      if (now >= deadline) return { kind: 'wait' };
      if (now - beatAt >= beatEvery) await this.seenNow(runId, agentId, (beatAt = now));
      await this.pause(runId, Math.min(pause, deadline - now));
      pause = Math.min(pause * 2, POLL_MOST_MS);
      state = await this.load(runId);
    }
  }

  async heartbeat(runId: string, agentId: string): Promise<void> {
    this.hear(runId, agentId, this.options.now());
    const state = await this.load(runId);
    this.refuse(() => mustHaveAgent(mustHave(state), agentId));
    await this.seenNow(runId, agentId, this.options.now());
  }

  async report(runId: string, agentId: string, report: AgentStepReport): Promise<void> {
    // The report is itself the sign of life that matters: once in, the agent's silence no longer counts for the step.
    this.hear(runId, agentId, this.options.now());
    await this.command(runId, (s) => reportFacts(s, agentId, report));
  }

  /** `recordedByRun`: a plan over several runs (--repeat) — what the agent recorded for each. */
  async leave(runId: string, agentId: string, recorded: number, recordedByRun?: Record<string, number>): Promise<void> {
    const state = await this.command(runId, (s) => leaveFacts(s, agentId, recorded, recordedByRun));
    // What it recorded is in storage before it is told it left.
    await this.reconcile(runId, state);
  }

  async status(runId: string): Promise<FleetStatus> {
    const state = await this.load(runId);
    return statusOf(this.refuse(() => mustHave(state)));
  }

  /** The run was deleted: agents waiting on it here are told the plan is done, and it is looked at no more. */
  drop(runId: string): void {
    this.forget(runId);
    this.wake(runId);
  }

  /** Resolves once the storage writes this process has under way for the run are done (tests, shutdown). */
  async settled(runId: string): Promise<void> {
    await this.queues.get(runId);
    await this.effects.get(runId);
  }

  // ——— storage ———

  private hear(runId: string, agentId: string, at: number): void {
    const key = `${runId}\n${agentId}`;
    this.heard.set(key, Math.max(this.heard.get(key) ?? -Infinity, at));
  }

  /** The agent was heard from: known here at once, in storage for the other replicas. */
  private async seenNow(runId: string, agentId: string, at: number): Promise<void> {
    this.hear(runId, agentId, at);
    await this.store.markSeen(runId, [agentId], at);
  }

  /** Last signs of life of the run's agents: storage's, and this process's own if newer. */
  private async lastSeen(runId: string): Promise<Map<string, number>> {
    const seen = await this.store.seen(runId);
    const prefix = `${runId}\n`;
    for (const [key, at] of this.heard) {
      if (!key.startsWith(prefix)) continue;
      const agent = key.slice(prefix.length);
      seen.set(agent, Math.max(seen.get(agent) ?? -Infinity, at));
    }
    return seen;
  }

  /** The plan as storage has it now; null without one (or once the run is being deleted). */
  private async load(runId: string): Promise<FleetState | null> {
    if (this.store.isDeleted(runId)) return null;
    const state = this.live(runId, fold(runId, await this.store.read(runId)));
    if (state) {
      this.watch(runId);
      if (!this.effects.has(runId) && pendingEffects(state).length > 0) void this.reconcile(runId, state).catch((err: unknown) => this.options.onError?.(err));
    }
    return state;
  }

  private live(runId: string, state: FleetState | null): FleetState | null {
    return this.store.isDeleted(runId) ? null : state;
  }

  /**
   * Checks a command against the plan as stored and appends what it adds, one command of a run at a
   * time in this process; returns the state with the new facts. Replicas taking commands for one run
   * at once agree through the log: the facts fold in one order everywhere, and a fact that no
   * longer applies (a second join of one agent) changes nothing.
   */
  private command(runId: string, decide: (s: FleetState | null) => FleetFact[]): Promise<FleetState> {
    const prev = this.queues.get(runId) ?? Promise.resolve();
    const run = prev.then(async () => {
      const state = this.live(runId, fold(runId, this.store.isDeleted(runId) ? [] : await this.store.read(runId)));
      const facts = this.refuse(() => decide(state));
      const after = await this.append(runId, state, facts);
      if (!after) throw new HttpError(500, 'the plan could not be read back', 'id');
      this.watch(runId);
      if (pendingEffects(after).length > 0) void this.reconcile(runId, after).catch((err: unknown) => this.options.onError?.(err));
      return after;
    });
    const settledRun = run.catch(() => undefined);
    this.queues.set(runId, settledRun);
    void settledRun.then(() => this.queues.get(runId) === settledRun && this.queues.delete(runId));
    return run;
  }

  /** Stamps and stores facts after everything the writer has seen; the state they make. Nothing is written for a run being deleted. */
  private async append(runId: string, state: FleetState | null, facts: readonly FleetFact[]): Promise<FleetState | null> {
    if (facts.length === 0) return state;
    if (this.store.isDeleted(runId)) throw new HttpError(404, 'this run was deleted', 'id');
    let at = Math.max(this.options.now(), (state?.lastAt ?? -Infinity) + 0.001);
    const logged = facts.map((fact) => ({ at: (at += 0.001), id: randomUUID(), fact }));
    await this.store.append(runId, logged);
    let after = state;
    for (const f of logged) after = after === null ? fold(runId, [f]) : (apply(after, f), after);
    this.wake(runId);
    return after;
  }

  /**
   * Writes what the state calls for and storage lacks, then records that it did — one pass per run
   * at a time in this process. Another replica may write the same at once: each write is an upsert.
   */
  private reconcile(runId: string, state: FleetState): Promise<void> {
    const before = this.effects.get(runId) ?? Promise.resolve();
    const pass = before.then(async () => {
      const done = this.written.get(runId) ?? new Set<string>();
      const effects = pendingEffects(state).filter((e) => !done.has(e.key));
      for (const effect of effects) await this.store.write(effect);
      if (effects.length > 0 && !this.store.isDeleted(runId)) {
        await this.append(runId, state, effects.map((e): FleetFact => ({ kind: 'written', key: e.key })));
        for (const e of effects) done.add(e.key);
        this.written.set(runId, done);
      }
    });
    const settledPass = pass.catch(() => undefined);
    this.effects.set(runId, settledPass);
    void settledPass.then(() => {
      if (this.effects.get(runId) !== settledPass) return;
      this.effects.delete(runId);
      this.written.delete(runId);
    });
    return pass;
  }

  // ——— time ———

  /**
   * Looks at every plan this process has seen lately: agents silent past the timeout in a step under
   * way are lost, an open plan left waiting too long closes — each a fact, whichever replica sees it first.
   */
  private async checkSilence(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    const now = this.options.now();
    // When this process itself stalled (a long synchronous insert, a busy host), heartbeats wait
    // unread in its socket buffers: the stall is not the agents' silence. Judge again next time.
    const stalled = now - this.lastCheck > 2 * (this.options.checkEveryMs ?? 250) + 250;
    this.lastCheck = now;
    try {
      for (const [runId, touched] of this.watched) {
        if (now - touched > FORGET_AFTER_MS || this.store.isDeleted(runId)) {
          this.forget(runId);
          continue;
        }
        try {
          const state = fold(runId, await this.store.read(runId));
          if (!state || this.store.isDeleted(runId)) continue;
          if (state.done && pendingEffects(state).length === 0) {
            this.forget(runId);
            continue;
          }
          if (!stalled && !state.done) {
            // The clock read before the signs of life: one that lands meanwhile only makes the agent younger.
            const at = this.options.now();
            const facts = tick(state, { now: at, seen: await this.lastSeen(runId), heardFrom: this.startedAt });
            if (facts.some((f) => f.kind === 'expire')) {
              this.options.onError?.(new Error(`run ${runId}: no next step or close for ${state.plan.open_timeout_ms / 1000} s; the plan is closed`));
            }
            // Appended as decided: in the fold, a loss after the agent's report (or an expiry after new steps) changes nothing.
            if (facts.length > 0) await this.command(runId, () => facts);
          }
          const latest = fold(runId, await this.store.read(runId));
          if (latest && pendingEffects(latest).length > 0) await this.reconcile(runId, latest);
        } catch (err) {
          this.options.onError?.(err);
        }
      }
    } finally {
      this.lastCheck = this.options.now();
      this.checking = false;
    }
  }

  // ——— waiting ———

  private pause(runId: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const set = this.waiters.get(runId) ?? new Set<() => void>();
      this.waiters.set(runId, set);
      const ac = new AbortController();
      const done = () => {
        ac.abort();
        set.delete(done);
        if (set.size === 0 && this.waiters.get(runId) === set) this.waiters.delete(runId);
        resolve();
      };
      set.add(done);
      void sleep(ms, undefined, { signal: ac.signal }).then(done, () => undefined);
    });
  }

  private wake(runId: string): void {
    for (const w of [...(this.waiters.get(runId) ?? [])]) w();
  }

  private forget(runId: string): void {
    this.watched.delete(runId);
    for (const key of this.heard.keys()) if (key.startsWith(`${runId}\n`)) this.heard.delete(key);
  }

  private watch(runId: string): void {
    this.watched.set(runId, this.options.now());
  }

  /** The machine's refusals as HTTP errors. */
  private refuse<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof FleetRefusal) throw new HttpError(err.status, err.message, err.field);
      throw err;
    }
  }
}
