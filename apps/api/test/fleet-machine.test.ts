import { describe, expect, it } from 'vitest';
import { FleetPlanBody, type AgentStepReport, type FleetPlanInput } from '@kneeboard/contracts';
import {
  addStepsFacts,
  assignmentFor,
  FleetRefusal,
  fold,
  joinFacts,
  leaveFacts,
  pendingEffects,
  planFacts,
  reportFacts,
  statusOf,
  tick,
  unwrittenWindow,
  type FleetFact,
  type FleetState,
  type LoggedFact,
} from '../src/services/fleet-machine.ts';

const RUN = '00000000-0000-4000-8000-000000000001';

/**
 * The plan's rules with a fake clock: a log of facts stamped by hand, folded as any replica would,
 * with every effect "written" as soon as the machine asks (what the shell does).
 */
class FakeLog {
  facts: LoggedFact[] = [];
  now = 1_700_000_000_000;
  private n = 0;
  state(): FleetState | null {
    return fold(RUN, this.facts);
  }
  add(...facts: FleetFact[]): FleetState {
    for (const fact of facts) this.facts.push({ at: this.now, id: String(++this.n).padStart(6, '0'), fact });
    // The shell writes what the state calls for, then records it.
    const effects = pendingEffects(this.state()!);
    for (const e of effects) this.facts.push({ at: this.now, id: String(++this.n).padStart(6, '0'), fact: { kind: 'written', key: e.key } });
    return this.state()!;
  }
  advance(ms: number): void {
    this.now += ms;
  }
}

const plan = (over: Partial<FleetPlanInput> = {}) =>
  FleetPlanBody.parse({
    agents: 2,
    steps: [
      { level: 10, load: 10 },
      { level: 20, load: 20 },
    ],
    duration_ms: 1_000,
    lead_ms: 100,
    heartbeat_timeout_ms: 600,
    request: { target: 'http://127.0.0.1:9/' },
    ...over,
  });
const join = (agent_id: string) => ({ agent_id, host: 'h', cores: 1, clock_offset_ms: 0, clock_rtt_ms: 0 });
const report = (index: number, at: number, events = 5): AgentStepReport => ({ index, started_at: at + 1, ended_at: at + 1_001, events, health: null });

function started(log: FakeLog, ...agents: string[]): FleetState {
  log.add(...planFacts(null, plan()));
  for (const a of agents) log.add(...joinFacts(log.state(), join(a)));
  return log.state()!;
}

describe('the fleet plan as a state machine (fake time, no I/O)', () => {
  it('starts the first step once enough agents joined, on a barrier lead_ms after the join that completed them, the shares adding up', () => {
    const log = new FakeLog();
    log.add(...planFacts(null, plan()));
    log.add(...joinFacts(log.state(), join('a')));
    expect(statusOf(log.state()!).started).toBe(false);
    log.advance(50);
    const s = log.add(...joinFacts(log.state(), join('b')));
    const [a, b] = [assignmentFor(s, 'a', -1), assignmentFor(s, 'b', -1)];
    if (a?.kind !== 'step' || b?.kind !== 'step') throw new Error('expected steps');
    expect([a.barrier_at, b.barrier_at]).toEqual([log.now + 100, log.now + 100]);
    expect(a.load + b.load).toBe(10);
  });

  it("names a step's open window as unwritten until it is recorded, so whoever hands the step out writes it first", () => {
    const log = new FakeLog();
    log.facts.push({ at: 1, id: '1', fact: { kind: 'plan', plan: plan({ agents: 1 }) } }, { at: 2, id: '2', fact: { kind: 'join', join: join('a') } });
    const s = log.state()!;
    expect(s.steps).toHaveLength(1);
    expect(assignmentFor(s, 'a', -1)?.kind).toBe('step');
    expect(unwrittenWindow(s, 0)).toMatchObject({ kind: 'window', window: { level: 10, started_at: 2 + 100, measure_from: 2 + 100, ended_at: null } });
    log.facts.push({ at: 3, id: '3', fact: { kind: 'written', key: 'open:0' } });
    expect(unwrittenWindow(log.state()!, 0)).toBeNull();
  });

  it('folds to the same state whatever order the facts are read in (what lets every replica agree)', () => {
    const log = new FakeLog();
    const s = started(log, 'a', 'b');
    log.advance(200);
    log.add(...reportFacts(s, 'a', report(0, s.steps[0]!.barrierAt)));
    log.advance(10);
    log.add(...reportFacts(log.state(), 'b', report(0, s.steps[0]!.barrierAt)));
    const shuffled = [...log.facts].reverse();
    expect(statusOf(fold(RUN, shuffled)!)).toEqual(statusOf(log.state()!));
    expect(statusOf(log.state()!).steps.map((x) => x.finished)).toEqual([true, false]);
  });

  it('a late joiner takes the next step, not the one under way; a report sent twice counts once', () => {
    const log = new FakeLog();
    const s0 = started(log, 'a', 'b');
    log.add(...joinFacts(s0, join('c')));
    expect(assignmentFor(log.state()!, 'c', -1)).toBeNull();
    expect(assignmentFor(log.state()!, 'a', -1)).toMatchObject({ kind: 'step', index: 0 });
    const barrier = s0.steps[0]!.barrierAt;
    log.add(...reportFacts(log.state(), 'a', report(0, barrier)));
    expect(reportFacts(log.state(), 'a', report(0, barrier))).toEqual([]);
    const s1 = log.add(...reportFacts(log.state(), 'b', report(0, barrier)));
    const c = assignmentFor(s1, 'c', -1);
    if (c?.kind !== 'step') throw new Error('expected a step');
    expect(c.index).toBe(1);
    const loads = ['a', 'b', 'c'].map((id) => s1.steps[1]!.shares.get(id) ?? 0);
    expect(loads.reduce((x, y) => x + y, 0)).toBe(20);
  });

  it('judges silence by the clock it is given: quiet past heartbeat_timeout_ms in a step under way is a loss, the step partial, the agent done', () => {
    const log = new FakeLog();
    const s = started(log, 'a', 'b');
    const barrier = s.steps[0]!.barrierAt;
    const seen = new Map([['a', log.now + 500]]);
    // Nobody beats before the barrier (lead_ms 100 after the join): within the timeout of it, nobody is judged.
    expect(tick(s, { now: barrier + 600, seen, heardFrom: -Infinity })).toEqual([]);
    log.add(...reportFacts(s, 'a', report(0, barrier)));
    log.advance(701);
    const facts = tick(log.state()!, { now: log.now, seen, heardFrom: -Infinity });
    expect(facts).toEqual([{ kind: 'lost', agent_id: 'b', index: 0, reason: 'no heartbeat for 0.6 s' }]);
    // Not before the reading process could hear anyone: a process started 100 ms ago judges nobody yet.
    expect(tick(log.state()!, { now: log.now, seen, heardFrom: log.now - 100 })).toEqual([]);
    const after = log.add(...facts);
    expect(statusOf(after).steps[0]).toMatchObject({ finished: true, partial: true, generator_limited: true });
    expect(statusOf(after).steps[0]!.reason).toMatch(/^partial step: b \(no heartbeat for 0\.6 s, share 5\) of 10$/);
    expect(assignmentFor(after, 'b', -1)).toEqual({ kind: 'done' });
    // The plan goes on with the one left: step 1 is all a's.
    expect(after.steps[1]!.shares).toEqual(new Map([['a', 20]]));
  });

  it('a loss decided after the agent reported changes nothing (replicas racing the report)', () => {
    const log = new FakeLog();
    const s = started(log, 'a', 'b');
    log.add(...reportFacts(s, 'b', report(0, s.steps[0]!.barrierAt)));
    log.advance(1);
    log.add({ kind: 'lost', agent_id: 'b', index: 0, reason: 'no heartbeat for 0.6 s' });
    expect(log.state()!.agents.get('b')!.state).toBe('active');
  });

  it('an API restart marks the step under way partial and starts the silence clock again; the plan goes on at the next step', () => {
    const log = new FakeLog();
    const s = started(log, 'a', 'b');
    const barrier = s.steps[0]!.barrierAt;
    log.advance(10_000);
    log.add({ kind: 'restart' });
    // Silent for 10 s across the restart, but not since it: nobody is lost.
    expect(tick(log.state()!, { now: log.now + 500, seen: new Map(), heardFrom: -Infinity })).toEqual([]);
    log.add(...reportFacts(log.state(), 'a', report(0, barrier)));
    const s1 = log.add(...reportFacts(log.state(), 'b', report(0, barrier)));
    const status = statusOf(s1);
    expect(status.steps.map((x) => [x.finished, x.partial])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(status.steps[0]!.reason).toBe('partial step: the API restarted while it ran');
    expect(assignmentFor(s1, 'a', 0)?.kind).toBe('step');
    // Its parts are kept as the agents reported them (nothing recorded is lost).
    const settle = pendingEffects(fold(RUN, log.facts.filter((f) => !(f.fact.kind === 'written' && f.fact.key === 'settle:0')))!).find((e) => e.key === 'settle:0');
    expect(settle?.kind === 'agent-steps' && settle.rows.map((r) => [r.agent_id, r.events, r.outcome])).toEqual([
      ['a', 5, 'ok'],
      ['b', 5, 'ok'],
    ]);
  });

  it('a replica starting while another one served the plan cuts nothing: only a restart with no fact logged since its process started counts', () => {
    const log = new FakeLog();
    const s = started(log, 'a', 'b');
    const barrier = s.steps[0]!.barrierAt;
    // Both replicas killed during step 0; one starts (booted 1 s before its restart fact) and resumes it.
    log.advance(3_000);
    const otherBooted = log.now - 500;
    log.add({ kind: 'restart', booted_at: log.now - 1_000 });
    log.advance(100);
    log.add(...reportFacts(log.state(), 'a', report(0, barrier)));
    log.add(...reportFacts(log.state(), 'b', report(0, barrier)));
    // The second one finishes starting during step 1, long after the first served step 0's reports.
    log.advance(2_000);
    const restarted = log.add({ kind: 'restart', booted_at: otherBooted });
    // Its silence clock was not reset either: the restart that counted is the first.
    expect(restarted.restartedAt).toBe(log.now - 2_100);
    const barrier1 = restarted.steps[1]!.barrierAt;
    log.add(...reportFacts(log.state(), 'a', report(1, barrier1)));
    const after = log.add(...reportFacts(log.state(), 'b', report(1, barrier1)));
    expect(statusOf(after).steps.map((x) => [x.finished, x.partial, x.reason])).toEqual([
      [true, true, 'partial step: the API restarted while it ran'],
      [true, false, null],
    ]);
  });

  it('an open plan waits after its last step, takes more, refuses a repeated level (400 naming it), and expires after open_timeout_ms', () => {
    const log = new FakeLog();
    log.add(...planFacts(null, plan({ agents: 1, steps: [{ level: 10, load: 10 }], open: true, open_timeout_ms: 1_000 })));
    const s = log.add(...joinFacts(log.state(), join('a')));
    log.add(...reportFacts(s, 'a', report(0, s.steps[0]!.barrierAt)));
    expect(statusOf(log.state()!)).toMatchObject({ awaiting_steps: true, done: false });
    expect(assignmentFor(log.state()!, 'a', 0)).toBeNull();
    expect(() => addStepsFacts(log.state(), [{ level: 10, load: 10 }])).toThrow(expect.objectContaining({ status: 400, field: 'steps[0].level' }));
    log.advance(500);
    log.add(...addStepsFacts(log.state(), [{ level: 15, load: 15 }]));
    const s1 = log.state()!;
    log.add(...reportFacts(s1, 'a', report(1, s1.steps[1]!.barrierAt)));
    expect(tick(log.state()!, { now: log.now + 999, seen: new Map(), heardFrom: -Infinity })).toEqual([]);
    const expiry = tick(log.state()!, { now: log.now + 1_001, seen: new Map(), heardFrom: -Infinity });
    expect(expiry).toEqual([{ kind: 'expire' }]);
    log.add(...expiry);
    expect(statusOf(log.state()!)).toMatchObject({ done: true, open: false, awaiting_steps: false });
    expect(assignmentFor(log.state()!, 'a', 1)).toEqual({ kind: 'done' });
  });

  it('refuses what the HTTP answer refuses: a second plan (409), a second join (409), a report without a share (400), an unknown agent (404)', () => {
    const log = new FakeLog();
    const s = started(log, 'a', 'b');
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        if (err instanceof FleetRefusal) return [err.status, err.field];
      }
      return null;
    };
    expect(refusal(() => planFacts(s, plan()))).toEqual([409, 'id']);
    expect(refusal(() => joinFacts(s, join('a')))).toEqual([409, 'agent_id']);
    expect(refusal(() => reportFacts(s, 'a', report(1, 0)))).toEqual([400, 'index']);
    expect(refusal(() => leaveFacts(s, 'zz', 1))).toEqual([404, 'agent_id']);
    expect(refusal(() => reportFacts(null, 'a', report(0, 0)))).toEqual([404, 'id']);
  });

  it("a leave names what the agent recorded in each run, once; its unreported share is lost ('left before reporting')", () => {
    const log = new FakeLog();
    const s = started(log, 'a', 'b');
    log.add(...leaveFacts(s, 'b', 7));
    expect(leaveFacts(log.state(), 'b', 9)).toEqual([]);
    const after = log.state()!;
    expect(after.steps[0]!.lost.get('b')).toBe('left before reporting');
    const rows = pendingEffects(fold(RUN, log.facts.filter((f) => f.fact.kind !== 'written'))!).find((e) => e.key.startsWith('agent:b:'));
    expect(rows?.kind === 'agents' && rows.rows.map((r) => [r.state, r.recorded])).toEqual([['left', 7]]);
  });
});
