import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@clickhouse/client';
import { createRecorder, KneeboardApi } from '@kneeboard/agent-sdk';
import { startClickHouseServer, type ClickHouseServer } from '@kneeboard/clickhouse-server';
import { AgentJoinResponse, Assignment, FleetStatus, RunAgents, RunDetail } from '@kneeboard/contracts';
import { startServerProcess, type ServerProcess } from '../testing/spawn.ts';

/**
 * The fleet plan lives in storage: two API processes on one ClickHouse server behind a proxy that
 * sends each request to the next replica in turn, a coordinator and two agents that speak the fleet
 * protocol as `kneeboard sweep --agents` and `kneeboard agent --join` do (the real ones live in
 * apps/agent, which depends on this app; its own fleet test drives the real CLI through a restart),
 * and the whole API killed in the middle of the plan, its replicas started again one after the
 * other. The plan resumes: every level is measured, the one step the restart cut through is marked
 * partial (the second replica starting while the first served is not a second restart), and
 * ClickHouse holds exactly the events the agents recorded.
 */

const LEVELS = [2, 4, 6, 8, 10];
const STEP_MS = 1_200;
/** How long a call is tried again through 502s (a replica down) and refused connections: longer than an API start on a busy CI box. */
const RETRY_FOR_MS = 300_000;
/** How long an API process may take to start (tsx compiles the sources at each start; minutes on a loaded 2-core box). */
const START_MS = 240_000;

class RoundRobinProxy {
  readonly served = [0, 0];
  private next = 0;
  private server!: Server;
  url = '';
  constructor(private readonly upstreams: () => string[]) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const i = this.next++ % 2;
      const target = new URL(this.upstreams()[i]!);
      const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
        this.served[i]! += 1;
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      });
      // A replica that is down answers as a load balancer would: 502, which agents try again.
      up.on('error', () => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: 502, error: 'Bad Gateway', message: 'replica down' }));
        else res.destroy();
      });
      req.pipe(up);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** One JSON call, tried again on 502/503/504 and network errors for up to `retryForMs` (what the agents' FleetApi does). */
async function call(base: string, method: string, path: string, body?: unknown, retryForMs = RETRY_FOR_MS): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + retryForMs;
  for (;;) {
    try {
      const res = await fetch(`${base}/api/v1${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(Math.min(20_000, Math.max(retryForMs, 1_000))),
      });
      const text = await res.text();
      if (![502, 503, 504].includes(res.status) || Date.now() > deadline) return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await sleep(Math.min(100 + Math.random() * 200, retryForMs / 4));
  }
}

async function ok<T>(parse: { parse: (x: unknown) => T }, base: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await call(base, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return parse.parse(res.body);
}
const Any = { parse: (x: unknown) => x };

/**
 * An agent as `kneeboard agent --join` runs it, minus the load engine: join, take each step, wait
 * for its barrier, record one event every few ms through the SDK's recorder until the step's
 * duration is over (heartbeats meanwhile), report its part, and at the end deliver and leave.
 */
/** Steps from `index` on are reported only once `until` resolves (the agents heartbeat meanwhile): the test holds the plan inside a step. */
let holdReports: { index: number; until: Promise<void> } | null = null;

async function runAgent(api: string, runId: string, agentId: string): Promise<{ recorded: number; steps: number[] }> {
  const recorder = await createRecorder({ api, runId, agentId, spoolDir: null, flushIntervalMs: 200, retry: { initialDelayMs: 100, maxDelayMs: 1_000, giveUpAfterMs: RETRY_FOR_MS } });
  const joined = await ok(AgentJoinResponse, api, 'POST', `/runs/${runId}/agents`, { agent_id: agentId, host: 'test', cores: 1, clock_offset_ms: 0, clock_rtt_ms: 0 });
  const steps: number[] = [];
  let after = -1;
  for (;;) {
    const a = await ok(Assignment, api, 'POST', `/runs/${runId}/agents/${agentId}/next`, { after, wait_ms: 2_000 });
    if (a.kind === 'done') break;
    if (a.kind === 'wait') continue;
    // Not before the barrier (it has a fraction of a ms; a timer may fire a little early): events before it would be warm-up.
    while (Date.now() < a.barrier_at) await sleep(Math.max(1, a.barrier_at - Date.now()));
    // Each beat tried again until the next is due, as the real agent's: with one replica down, the
    // proxy's turns could otherwise hand one agent's every beat to the dead one.
    const beatEvery = joined.heartbeat_ms / 2;
    const beat = setInterval(() => void call(api, 'POST', `/runs/${runId}/agents/${agentId}/heartbeat`, { index: a.index }, beatEvery).catch(() => undefined), beatEvery);
    const startedAt = Date.now();
    let endedAt = startedAt;
    let events = 0;
    try {
      // Its whole duration from its own start, as the real agent: one handed the step late (across the restart) still measures it.
      while (Date.now() < startedAt + a.duration_ms) {
        recorder.record({ level: a.level, latencyMs: 1 + (events % 7), status: 200, tsMs: Date.now() });
        events += 1;
        await sleep(5);
      }
      endedAt = Date.now();
      if (holdReports && a.index >= holdReports.index) await holdReports.until;
    } finally {
      clearInterval(beat);
    }
    await ok(Any, api, 'POST', `/runs/${runId}/agents/${agentId}/steps`, { index: a.index, started_at: startedAt, ended_at: endedAt, events, health: null });
    steps.push(a.index);
    after = a.index;
  }
  await recorder.flush();
  const { recorded, uploaded } = recorder.stats();
  await ok(Any, api, 'POST', `/runs/${runId}/agents/${agentId}/leave`, { recorded, uploaded });
  return { recorded, steps };
}

describe('the fleet plan over two API replicas behind a round-robin proxy, through an API restart', () => {
  let server: ClickHouseServer;
  let replicas: ServerProcess[] = [];
  let proxy: RoundRobinProxy;
  const database = 'kb_fleet_replicas';
  const env = () => ({ CLICKHOUSE_URL: server.url, CLICKHOUSE_DATABASE: database });

  beforeAll(async () => {
    server = await startClickHouseServer();
    const admin = createClient({ url: server.url });
    await admin.command({ query: `CREATE DATABASE ${database}` });
    await admin.close();
    // One after the other: the first applies the migrations, the second finds them applied.
    replicas = [await startServerProcess(env(), START_MS)];
    replicas.push(await startServerProcess(env(), START_MS));
    proxy = new RoundRobinProxy(() => replicas.map((r) => r.url));
    await proxy.start();
  }, 2 * START_MS + 60_000);
  afterAll(async () => {
    await proxy?.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    await server?.stop();
  });

  it('resumes the plan after both replicas are killed mid-plan: every level measured, the step cut through partial, events stored = events recorded', async () => {
    const api = proxy.url;
    const sdk = new KneeboardApi({ baseUrl: api, retry: { initialDelayMs: 100, maxDelayMs: 1_000, giveUpAfterMs: RETRY_FOR_MS } });
    const runId = await sdk.createRun({ service: 'fleet-replicas', release: 'v1', tags: { agents: '2' } });
    await ok(Any, api, 'POST', `/runs/${runId}/fleet`, {
      agents: 2,
      steps: LEVELS.map((level) => ({ level, load: level })),
      warmup_ms: 0,
      duration_ms: STEP_MS,
      lead_ms: 1_000,
      heartbeat_timeout_ms: 5_000,
      // An agent starting late on a busy box would mark its step partial too: only the restart may here.
      start_tolerance_ms: 60_000,
      request: { target: 'http://127.0.0.1:9/' },
    });
    const agents = ['agent-1', 'agent-2'].map((id) => runAgent(api, runId, id));
    const status = () => ok(FleetStatus, api, 'GET', `/runs/${runId}/fleet`);

    // Killed while the second step is handed out and not settled: some step is under way at the
    // kill whichever moment it lands (the next is scheduled as the one before settles), and the
    // plan cannot be done yet.
    for (let s = await status(); !(s.steps.length >= 2 && !s.steps[1]!.finished); s = await status()) await sleep(50);
    await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
    const ports = replicas.map((r) => Number(new URL(r.url).port));
    // One replica comes back and resumes the plan; the other starts only while a later step is under
    // way (on a busy box two replicas never start together): the agents hold that step's report until
    // it is up. Its start cuts through nothing — the first replica was serving — so the plan has one
    // restart, not two.
    replicas[0] = await startServerProcess(env(), START_MS, ports[0]);
    const later = (await status()).steps.length;
    let release = () => {};
    if (later < LEVELS.length) {
      holdReports = { index: later, until: new Promise<void>((resolve) => (release = resolve)) };
      for (let s = await status(); s.steps.length <= later; s = await status()) await sleep(50);
    }
    replicas[1] = await startServerProcess(env(), START_MS, ports[1]);
    release();

    const results = await Promise.all(agents);
    // Until nothing is left to happen (an agent judged lost stays so: the assertions below say it).
    let final = await status();
    while (!final.done || final.agents.some((a) => a.state === 'active' || a.state === 'waiting')) {
      await sleep(100);
      final = await status();
    }
    await sdk.finishRun(runId, 'finished');
    await sdk.close();

    // The plan went on: every level ran, each agent took every step.
    expect(final.steps.map((s) => [s.level, s.finished])).toEqual(LEVELS.map((level) => [level, true]));
    for (const r of results) expect(r.steps).toEqual(LEVELS.map((_, i) => i));
    // Exactly one step was under way when the API went down: it alone is partial, and says why.
    const restarted = final.steps.filter((s) => s.reason?.includes('the API restarted while it ran'));
    expect(restarted).toHaveLength(1);
    expect(restarted[0]!.index).toBeGreaterThanOrEqual(1);
    expect(final.steps.filter((s) => s.partial)).toEqual(restarted);
    // Both replicas answered fleet calls of this plan (the proxy alternates every request).
    expect(proxy.served.every((n) => n > 0)).toBe(true);

    // Nothing recorded is lost, nothing is stored twice.
    const recorded = results.reduce((n, r) => n + r.recorded, 0);
    expect(recorded).toBeGreaterThan(0);
    const client = createClient({ url: server.url, database });
    try {
      const rows = await client.query({ query: 'SELECT count() AS n FROM kb_request_events_v1 WHERE run_id = {run:UUID}', query_params: { run: runId }, format: 'JSONEachRow' });
      expect(Number(((await rows.json()) as Array<{ n: string }>)[0]!.n)).toBe(recorded);
    } finally {
      await client.close();
    }
    const stored = await ok(RunAgents, api, 'GET', `/runs/${runId}/agents`);
    expect(stored.agents.map((a) => [a.agent_id, a.state, a.stored === a.recorded])).toEqual([
      ['agent-1', 'left', true],
      ['agent-2', 'left', true],
    ]);
    const detail = await ok(RunDetail, api, 'GET', `/runs/${runId}?exact=1`);
    expect(detail.curve.map((p) => p.level)).toEqual(LEVELS);
    expect(detail.curve.reduce((n, p) => n + p.requests, 0)).toBe(recorded);
  }, 900_000);
});
