import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { listSteps, readRunAgents } from '@kneeboard/clickhouse';
import { ApiError, Assignment, CreatedToken, FleetStatus, RunAgents } from '@kneeboard/contracts';
import { startTestApi, type TestApi } from './helpers.ts';

const ADMIN = 'test-admin-token-0123456789abcdef';
let api: TestApi;
let ingest: string;
beforeAll(async () => {
  api = await startTestApi({ access: { mode: 'required', read: 'public', adminToken: ADMIN } });
  ingest = (await mint('fleet-svc')).token;
});
afterAll(async () => api.close());

async function call(method: string, path: string, body?: unknown, token = ingest): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${api.url}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}

async function mint(service: string): Promise<CreatedToken> {
  const res = await call('POST', '/tokens', { name: `ingest-${service}`, scope: 'ingest', service }, ADMIN);
  return CreatedToken.parse(res.body);
}

const plan = {
  agents: 2,
  steps: [
    { level: 10, load: 10 },
    { level: 20, load: 20 },
  ],
  warmup_ms: 0,
  duration_ms: 200,
  lead_ms: 100,
  heartbeat_timeout_ms: 600,
  request: { target: 'http://127.0.0.1:9/' },
};
const join = (agent_id: string) => ({ agent_id, host: 'h', cores: 1, clock_offset_ms: 0.5, clock_rtt_ms: 0.2 });

async function newRun(): Promise<string> {
  const res = await call('POST', '/runs', { service: 'fleet-svc', release: 'v1' });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

const next = async (run: string, agent: string, after: number) => Assignment.parse((await call('POST', `/runs/${run}/agents/${agent}/next`, { after, wait_ms: 5_000 })).body);

describe('several agents, one run (the API side)', () => {
  it("drops a deleted run's plan: an agent waiting on it is told done, and its silent agents are not written into the run that is gone", async () => {
    const run = await newRun();
    expect((await call('POST', `/runs/${run}/fleet`, plan)).status).toBe(201);
    for (const id of ['a', 'b']) expect((await call('POST', `/runs/${run}/agents`, join(id))).status).toBe(201);
    expect((await next(run, 'a', -1)).kind).toBe('step');
    // b waits for a step after 0 (none comes: step 0 is under way); the deletion ends its wait.
    const bWaiting = call('POST', `/runs/${run}/agents/b/next`, { after: 0, wait_ms: 30_000 });
    expect((await call('DELETE', `/runs/${run}`, undefined, ADMIN)).status).toBe(204);
    expect(Assignment.parse((await bWaiting).body).kind).toBe('done');
    expect((await call('GET', `/runs/${run}/fleet`)).status).toBe(404);
    // Well past heartbeat_timeout_ms (600): a plan left in place would have had both agents declared
    // lost by the check every 250 ms, their rows (and the step's window) written after the purge.
    await sleep(2_500);
    expect(await readRunAgents(api.db, run)).toMatchObject({ agents: [], steps: [] });
    expect(await listSteps(api.db, run)).toEqual([]);
  });

  it('refuses a bad plan with a 400 naming the field, and plans nothing', async () => {
    const run = await newRun();
    const bad = await call('POST', `/runs/${run}/fleet`, { ...plan, steps: [{ level: 10, load: 10 }, { level: 10, load: 5 }] });
    expect(bad.status).toBe(400);
    expect(ApiError.parse(bad.body).field).toBe('steps[1].level');
    expect((await call('GET', `/runs/${run}/fleet`)).status).toBe(404);
  });

  it("answers the clock exchange on the API's clock", async () => {
    const run = await newRun();
    const t0 = Date.now();
    const res = await call('POST', `/runs/${run}/agents/clock`, { t0 });
    expect(res.status).toBe(200);
    const { t1, t2 } = res.body as { t1: number; t2: number };
    expect(t2).toBeGreaterThanOrEqual(t1);
    expect(Math.abs(t1 - t0)).toBeLessThan(5_000);
  });

  it('keeps the clock exchange on the wall clock when the monotonic clock has fallen behind it (a suspended machine)', async () => {
    const run = await newRun();
    // A monotonic clock that missed 15 s, as after a suspend: the wall clock went on, it did not.
    const realNow = performance.now.bind(performance);
    const stopped = vi.spyOn(performance, 'now').mockImplementation(() => realNow() - 15_000);
    try {
      const before = Date.now();
      const res = await call('POST', `/runs/${run}/agents/clock`, { t0: before });
      const after = Date.now();
      expect(res.status).toBe(200);
      const { t1, t2 } = res.body as { t1: number; t2: number };
      for (const t of [t1, t2]) {
        expect(t).toBeGreaterThanOrEqual(before);
        expect(t).toBeLessThanOrEqual(after);
      }
    } finally {
      stopped.mockRestore();
    }
  });

  it('refuses a token limited to another service (403), so nothing joins', async () => {
    const run = await newRun();
    expect((await call('POST', `/runs/${run}/fleet`, plan)).status).toBe(201);
    const other = (await mint('other-svc')).token;
    expect((await call('POST', `/runs/${run}/agents`, join('x'), other)).status).toBe(403);
    expect(FleetStatus.parse((await call('GET', `/runs/${run}/fleet`)).body).agents).toEqual([]);
  });

  it('splits each step among the agents alive, hands a late joiner the next step, and marks a step partial when an agent goes silent', async () => {
    const run = await newRun();
    expect((await call('POST', `/runs/${run}/fleet`, plan)).status).toBe(201);
    expect((await call('POST', `/runs/${run}/agents`, join('a'))).status).toBe(201);
    // One agent of two: nothing starts yet.
    expect(FleetStatus.parse((await call('GET', `/runs/${run}/fleet`)).body).started).toBe(false);
    expect((await call('POST', `/runs/${run}/agents`, join('b'))).status).toBe(201);
    expect((await call('POST', `/runs/${run}/agents`, join('b'))).status).toBe(409);

    const a0 = await next(run, 'a', -1);
    const b0 = await next(run, 'b', -1);
    if (a0.kind !== 'step' || b0.kind !== 'step') throw new Error('expected steps');
    expect([a0.index, b0.index]).toEqual([0, 0]);
    expect(a0.load + b0.load).toBe(10);
    expect(a0.barrier_at).toBe(b0.barrier_at);

    // c joins while step 0 is handed out: it takes step 1, never step 0.
    expect((await call('POST', `/runs/${run}/agents`, join('c'))).status).toBe(201);
    const cNext = next(run, 'c', -1);
    const report = (index: number, at: number) => ({ index, started_at: at + 1, ended_at: at + 201, events: 5, health: null });
    expect((await call('POST', `/runs/${run}/agents/a/steps`, report(0, a0.barrier_at))).status).toBe(200);
    expect((await call('POST', `/runs/${run}/agents/b/steps`, report(0, b0.barrier_at))).status).toBe(200);
    const c1 = await cNext;
    if (c1.kind !== 'step') throw new Error('expected a step');
    expect(c1.index).toBe(1);
    const a1 = await next(run, 'a', 0);
    const b1 = await next(run, 'b', 0);
    if (a1.kind !== 'step' || b1.kind !== 'step') throw new Error('expected steps');
    expect(a1.load + b1.load + c1.load).toBe(20);

    // a and c report; b says nothing more, and is declared dead after the heartbeat timeout.
    await call('POST', `/runs/${run}/agents/a/steps`, report(1, a1.barrier_at));
    await call('POST', `/runs/${run}/agents/c/steps`, report(1, c1.barrier_at));
    let status = FleetStatus.parse((await call('GET', `/runs/${run}/fleet`)).body);
    for (let i = 0; i < 50 && !status.done; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = FleetStatus.parse((await call('GET', `/runs/${run}/fleet`)).body);
    }
    expect(status.done).toBe(true);
    expect(status.steps.map((s) => s.partial)).toEqual([false, true]);
    expect(status.agents.find((x) => x.agent_id === 'b')!.state).toBe('lost');
    expect((await next(run, 'a', 1)).kind).toBe('done');

    for (const id of ['a', 'c']) expect((await call('POST', `/runs/${run}/agents/${id}/leave`, { recorded: 10, uploaded: 10 })).status).toBe(200);
    // What is stored: the step windows with their combined health, the agents and their parts.
    let steps = await listSteps(api.db, run);
    for (let i = 0; i < 50 && steps.filter((s) => s.ended_at !== null).length < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      steps = await listSteps(api.db, run);
    }
    expect(steps.map((s) => [s.level, s.health?.target, s.health?.generator_limited])).toEqual([
      [10, 10, false],
      [20, 20, true],
    ]);
    expect(steps[1]!.health!.reason).toMatch(/^partial step: b \(no heartbeat for 0\.6 s, share \d+\) of 20$/);
    const agents = RunAgents.parse((await call('GET', `/runs/${run}/agents`)).body);
    expect(agents.agents.map((x) => [x.agent_id, x.state, x.clock_offset_ms])).toEqual([
      ['a', 'left', 0.5],
      ['b', 'lost', 0.5],
      ['c', 'left', 0.5],
    ]);
    expect(agents.agents.find((x) => x.agent_id === 'a')!.recorded).toBe(10);
    expect(agents.steps.filter((s) => s.index === 1).map((s) => [s.agent_id, s.outcome])).toEqual([
      ['a', 'ok'],
      ['b', 'lost'],
      ['c', 'ok'],
    ]);
  });

  it('holds an open plan after its last step until the coordinator adds steps or closes it; a closed plan takes none', async () => {
    const run = await newRun();
    const open = { ...plan, agents: 1, steps: [{ level: 10, load: 10 }], open: true };
    expect((await call('POST', `/runs/${run}/fleet`, open)).status).toBe(201);
    expect((await call('POST', `/runs/${run}/agents`, join('a'))).status).toBe(201);
    const report = (index: number, at: number) => ({ index, started_at: at + 1, ended_at: at + 201, events: 5, health: null });
    const s0 = await next(run, 'a', -1);
    if (s0.kind !== 'step') throw new Error('expected a step');
    expect((await call('POST', `/runs/${run}/agents/a/steps`, report(0, s0.barrier_at))).status).toBe(200);

    // The only step settled: the agent is told to wait, not that the plan is done.
    let status = FleetStatus.parse((await call('GET', `/runs/${run}/fleet`)).body);
    expect([status.open, status.awaiting_steps, status.done, status.planned]).toEqual([true, true, false, 1]);
    expect(Assignment.parse((await call('POST', `/runs/${run}/agents/a/next`, { after: 0, wait_ms: 200 })).body).kind).toBe('wait');

    // A level already in the plan is refused, naming it; nothing is added.
    const repeated = await call('POST', `/runs/${run}/fleet/steps`, { steps: [{ level: 10, load: 10 }] });
    expect(repeated.status).toBe(400);
    expect(ApiError.parse(repeated.body)).toMatchObject({ field: 'steps[0].level', message: expect.stringContaining('level 10 is already in the plan') });
    expect(FleetStatus.parse((await call('GET', `/runs/${run}/fleet`)).body).planned).toBe(1);

    // A new step starts at once for the agent waiting.
    const waiting = next(run, 'a', 0);
    expect((await call('POST', `/runs/${run}/fleet/steps`, { steps: [{ level: 15, load: 15 }] })).status).toBe(200);
    const s1 = await waiting;
    if (s1.kind !== 'step') throw new Error('expected a step');
    expect([s1.index, s1.level, s1.load]).toEqual([1, 15, 15]);

    // Closed while step 1 runs: once it settles the plan is done, and it takes no more steps.
    expect((await call('POST', `/runs/${run}/fleet/close`)).status).toBe(200);
    expect((await call('POST', `/runs/${run}/fleet/steps`, { steps: [{ level: 20, load: 20 }] })).status).toBe(409);
    expect(FleetStatus.parse((await call('GET', `/runs/${run}/fleet`)).body).done).toBe(false);
    expect((await call('POST', `/runs/${run}/agents/a/steps`, report(1, s1.barrier_at))).status).toBe(200);
    status = FleetStatus.parse((await call('GET', `/runs/${run}/fleet`)).body);
    expect([status.done, status.open, status.awaiting_steps, status.steps.map((s) => s.level)]).toEqual([true, false, false, [10, 15]]);
    expect((await next(run, 'a', 1)).kind).toBe('done');
  });

  it('closes an open plan left waiting past its open_timeout_ms, so its agents are not held for ever', async () => {
    const run = await newRun();
    expect((await call('POST', `/runs/${run}/fleet`, { ...plan, agents: 1, steps: [{ level: 10, load: 10 }], open: true, open_timeout_ms: 1_000 })).status).toBe(201);
    expect((await call('POST', `/runs/${run}/agents`, join('a'))).status).toBe(201);
    const s0 = await next(run, 'a', -1);
    if (s0.kind !== 'step') throw new Error('expected a step');
    expect((await call('POST', `/runs/${run}/agents/a/steps`, { index: 0, started_at: s0.barrier_at + 1, ended_at: s0.barrier_at + 201, events: 5, health: null })).status).toBe(200);
    // The agent's long poll outlasts the timeout: it ends with done, not with wait.
    const after = Assignment.parse((await call('POST', `/runs/${run}/agents/a/next`, { after: 0, wait_ms: 5_000 })).body);
    expect(after.kind).toBe('done');
    expect(FleetStatus.parse((await call('GET', `/runs/${run}/fleet`)).body).done).toBe(true);
  });

  it('a plan over several runs of one service (--repeat): each step records into its run, agents are listed in every run; other services and unknown runs are refused', async () => {
    const [first, second] = [await newRun(), await newRun()];
    const foreign = (await call('POST', '/runs', { service: 'other-fleet-svc', release: 'v1' }, ADMIN)).body as { id: string };
    const stepsOf = (other: string) => [
      { level: 10, load: 10 },
      { level: 10, load: 10, run_id: other },
    ];
    const refused = await call('POST', `/runs/${first}/fleet`, { ...plan, agents: 1, steps: stepsOf(foreign.id) });
    expect(refused.status).toBe(400);
    expect(ApiError.parse(refused.body)).toMatchObject({ field: 'steps[1].run_id', message: expect.stringContaining('another service') });
    const unknown = await call('POST', `/runs/${first}/fleet`, { ...plan, agents: 1, steps: stepsOf('00000000-0000-4000-8000-00000000dead') });
    expect(ApiError.parse(unknown.body)).toMatchObject({ statusCode: 400, field: 'steps[1].run_id' });
    expect((await call('GET', `/runs/${first}/fleet`)).status).toBe(404);

    // The same level twice is fine in two runs.
    expect((await call('POST', `/runs/${first}/fleet`, { ...plan, agents: 1, steps: stepsOf(second) })).status).toBe(201);
    expect((await call('POST', `/runs/${first}/agents`, join('a'))).status).toBe(201);
    for (const [index, run] of [[0, first], [1, second]] as const) {
      const a = await next(first, 'a', index - 1);
      if (a.kind !== 'step') throw new Error('expected a step');
      expect([a.index, a.run_id, a.level]).toEqual([index, run, 10]);
      expect((await call('POST', `/runs/${first}/agents/a/steps`, { index, started_at: a.barrier_at + 1, ended_at: a.barrier_at + 201, events: 5, health: null })).status).toBe(200);
    }
    expect((await call('POST', `/runs/${first}/agents/a/leave`, { recorded: 12, uploaded: 12, recorded_by_run: { [first]: 5, [second]: 7 } })).status).toBe(200);
    // Each run got its own step window and lists the agent, with what it recorded there.
    for (const [run, recorded] of [[first, 5], [second, 7]] as const) {
      let steps = await listSteps(api.db, run);
      for (let i = 0; i < 50 && steps.filter((x) => x.ended_at !== null).length < 1; i++) {
        await new Promise((r) => setTimeout(r, 100));
        steps = await listSteps(api.db, run);
      }
      expect(steps.map((x) => [x.level, x.ended_at !== null])).toEqual([[10, true]]);
      const agents = RunAgents.parse((await call('GET', `/runs/${run}/agents`)).body);
      expect(agents.agents.map((x) => [x.agent_id, x.state, x.recorded])).toEqual([['a', 'left', recorded]]);
    }
  });
});
