import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, FleetStatus, MAX_FLEET_MIX_CHARS, type RunDetail } from '@kneeboard/contracts';
import { UNTRUSTED_CERTIFICATE } from '../src/load/target-client.ts';
import { chiSquare, CHI2_CRITICAL_1E6 } from './support/chi-square.ts';
import { agentJson, runAgents, runDetail, startAgent, startCoordinator, type AgentJson } from './support/fleet-harness.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';
import { runCli } from './support/run-cli.ts';
import { selfSignedCert, startNginxTls, type NginxTls } from './support/tls-target.ts';

/**
 * A fleet's plan carries the whole request: a request mix (the coordinator reads the file, agents
 * get the parsed requests), TLS trust (`--insecure`, a `--ca-file`'s PEM) and the HTTP version.
 * The real API (its own process, embedded ClickHouse), every agent and the coordinator as CLI
 * processes, a target that routes by path and a real nginx with a self-signed certificate, all
 * on loopback.
 */
const SERVICE_MS: Record<string, number> = { '/fast': 1, '/medium': 3, '/slow': 6 };
const WEIGHTS = { fast: 5, medium: 3, slow: 2 };
const SERVICE = { fast: 1, medium: 3, slow: 6 };

/** What the target saw: requests by method and path, and each POST /slow's content type and body. */
const hits: Record<string, number> = {};
const slowBodies = new Set<string>();
function route(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0]!;
  const ms = SERVICE_MS[path];
  hits[`${req.method} ${path}`] = (hits[`${req.method} ${path}`] ?? 0) + 1;
  const arrived = performance.now();
  let body = '';
  req.setEncoding('utf8').on('data', (d: string) => (body += d));
  req.on('end', () => {
    if (path === '/slow') slowBodies.add(`${req.headers['content-type']} ${body}`);
    if (ms === undefined) {
      res.writeHead(404, { 'content-length': '0' }).end();
      return;
    }
    holdUntil(arrived + ms, () => res.writeHead(200, { 'server-timing': `compute;dur=${ms}`, 'content-length': '2' }).end('ok'));
  });
}

/** Answers once the monotonic clock has passed `until` (a timer alone may fire early). */
function holdUntil(until: number, done: () => void): void {
  const left = until - performance.now();
  if (left <= 0) done();
  else setTimeout(() => holdUntil(until, done), left);
}

let api: ApiProcess;
let target: Server;
let url = '';
let nginx: NginxTls;
let dir: string;
let cert = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kb-fleet-requests-'));
  const port = await freePort();
  api = await startApi(mkdtempSync(join(tmpdir(), 'kb-fleet-requests-data-')), port, 120_000);
  target = createServer(route);
  target.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  // HTTP/2 offered by ALPN: the same server takes HTTP/1.1 agents and an --http2 one.
  cert = selfSignedCert(dir).cert;
  nginx = await startNginxTls(dir, { http2: true });
}, 150_000);
afterAll(async () => {
  nginx?.stop();
  target?.closeAllConnections();
  await new Promise((resolve) => target?.close(resolve));
  await api?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function mixFile(): string {
  const path = join(dir, 'mix.json');
  writeFileSync(
    path,
    JSON.stringify([
      { name: 'fast', path: '/fast?q=1', weight: WEIGHTS.fast },
      { name: 'medium', url: `${url}/medium`, weight: WEIGHTS.medium },
      { name: 'slow', method: 'POST', path: '/slow', body: { cart: [1, 2] }, weight: WEIGHTS.slow },
    ]),
  );
  return path;
}

/**
 * The coordinator fails exactly when a step was partial: on a starved box an agent may start past
 * the start tolerance ('behind'), which makes the step partial without losing a request.
 */
function expectCoordinatorExit(coord: { code: number | null; stderr: string }, detail: RunDetail): void {
  const partial = detail.curve.some((p) => p.health?.reason?.startsWith('partial step') === true);
  expect(coord.code, coord.stderr).toBe(partial ? 1 : 0);
}

const status = async (runId: string) => FleetStatus.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}/fleet`)).json());

describe('a request mix driven by a fleet (kneeboard sweep --requests --agents)', () => {
  it('two agents, one per engine: each drives the plan’s mix — its events named, counts by the weights, each name its own endpoint — and the run records the mix', async () => {
    for (const k of Object.keys(hits)) delete hits[k];
    slowBodies.clear();
    // 3 s: enough requests per agent for the χ² test even when a starved agent starts late.
    const fleet = await startCoordinator(api.url, `${url}/`, 2, '4', ['--requests', mixFile(), '-d', '3s']);
    const agents = [startAgent(api.url, fleet.runId, 'mix-node'), startAgent(api.url, fleet.runId, 'mix-native', {}, 240_000, 'native')];
    const outs = await Promise.all(agents.map((a) => a.done));
    const coord = await fleet.coordinator.done;
    for (const o of outs) expect(o.code, o.stderr).toBe(0);
    const reports: AgentJson[] = outs.map((o) => agentJson(o.stdout));

    // Each agent's share of the step, by name: every name, the weights' shares, each name's own service time.
    for (const r of reports) {
      const step = r.steps[0]!;
      const byName = step.by_name!;
      expect(byName.map((n) => n.name), r.agent_id).toEqual(['fast', 'medium', 'slow']);
      for (const n of byName) {
        expect(n.errors, `${r.agent_id} ${n.name}`).toBe(0);
        const service = SERVICE[n.name as keyof typeof SERVICE];
        // The compute time the endpoint reports is the one its name's requests carry (histogram: within 0.1%).
        expect(Math.abs(n.compute_p50_ms! - service), `${r.agent_id} ${n.name}: ${n.compute_p50_ms}`).toBeLessThanOrEqual(service * 0.0011);
        expect(n.p50_ms!, `${r.agent_id} ${n.name}`).toBeGreaterThanOrEqual(service);
      }
      const counts = byName.map((n) => n.requests);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(step.requests);
      expect(step.requests, r.agent_id).toBeGreaterThan(50);
      expect(chiSquare(counts, Object.values(WEIGHTS)), `${r.agent_id} ${JSON.stringify(counts)}`).toBeLessThan(CHI2_CRITICAL_1E6[2]!);
    }

    // Stored: every event of both agents carries a name of the mix, and the names' counts follow the weights.
    const detail = await runDetail(api.url, fleet.runId);
    expectCoordinatorExit(coord, detail);
    const names = detail.names!;
    expect(names.map((n) => n.name)).toEqual(['fast', 'medium', 'slow']);
    const stored = await runAgents(api.url, fleet.runId);
    for (const r of reports) expect(stored.agents.find((a) => a.agent_id === r.agent_id)!.stored, r.agent_id).toBe(r.recorded);
    expect(names.reduce((a, n) => a + n.requests, 0)).toBe(reports.reduce((a, r) => a + r.recorded, 0));
    expect(chiSquare(names.map((n) => n.requests), Object.values(WEIGHTS)), JSON.stringify(names)).toBeLessThan(CHI2_CRITICAL_1E6[2]!);
    // The run records the plan's mix as a one-agent sweep records it.
    expect(detail.run.tags).toMatchObject({ requests_file: 'mix.json', requests: 'fast=50%, medium=30%, slow=20%', requests_count: '3', agents: '2' });

    // The target saw the mix's requests only — methods, paths and the JSON body as the file gave them.
    expect(Object.keys(hits).sort()).toEqual(['GET /fast', 'GET /medium', 'POST /slow']);
    expect([...slowBodies]).toEqual(['application/json {"cart":[1,2]}']);
  }, 300_000);

  it('refuses a mix too large for the plan with exit 2 naming --requests, before creating a run', async () => {
    const big = join(dir, 'big.json');
    const body = 'x'.repeat(Math.ceil(MAX_FLEET_MIX_CHARS / 2));
    writeFileSync(big, JSON.stringify([{ name: 'a', path: '/fast', body }, { name: 'b', path: '/slow', body }]));
    const before = await (await fetch(`${api.url}/api/v1/runs?service=fleet-big`)).text();
    const r = await runCli(['sweep', '--target', `${url}/`, '-c', '2', '--service', 'fleet-big', '--release', 'v1', '--api', api.url, '--agents', '2', '--requests', big], 60_000).done;
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--requests with --agents: must be at most ${MAX_FLEET_MIX_CHARS / 1024} KiB`);
    expect(await (await fetch(`${api.url}/api/v1/runs?service=fleet-big`)).text()).toBe(before);
  }, 120_000);

  it('the API refuses a bad mix in a plan with a 400 naming the field, and plans nothing', async () => {
    const created = await fetch(`${api.url}/api/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ service: 'fleet-bad', release: 'v1' }) });
    const { id } = (await created.json()) as { id: string };
    const plan = (requests: unknown[]) => ({ agents: 1, steps: [{ level: 1, load: 1 }], duration_ms: 500, request: { target: `${url}/`, requests } });
    const post = (body: unknown) => fetch(`${api.url}/api/v1/runs/${id}/fleet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const badWeight = await post(plan([{ name: 'fast', method: 'GET', path: '/fast', weight: 1 }, { name: 'cart', method: 'GET', path: '/cart', weight: -2 }]));
    expect(badWeight.status).toBe(400);
    const error = ApiError.parse(await badWeight.json());
    expect(error.field).toBe('request.requests[1].weight');
    expect(error.message).toContain('must be more than 0');
    // A local file path is no request: the plan carries requests, never a file.
    const noFile = await post({ ...plan([{ name: 'fast', method: 'GET', path: '/fast', weight: 1, file: '/tmp/mix.json' }]) });
    expect(noFile.status).toBe(400);
    expect(ApiError.parse(await noFile.json()).field).toBe('request.requests[0]');
    expect((await fetch(`${api.url}/api/v1/runs/${id}/fleet`)).status).toBe(404);
  }, 60_000);
});

describe('HTTPS and HTTP/2 for a fleet: the plan carries the trust and the HTTP version', () => {
  const tlsUrl = () => `https://localhost:${nginx.port}/`;

  it('--ca-file: the PEM travels in the plan; an agent on each engine trusts it and sweeps over TLS', async () => {
    const from = nginx.logSize();
    const fleet = await startCoordinator(api.url, tlsUrl(), 2, '2', ['--ca-file', cert, '-d', '3s']);
    const agents = [startAgent(api.url, fleet.runId, 'tls-node'), startAgent(api.url, fleet.runId, 'tls-native', {}, 240_000, 'native')];
    const outs = await Promise.all(agents.map((a) => a.done));
    const coord = await fleet.coordinator.done;
    for (const o of outs) expect(o.code, o.stderr).toBe(0);
    const reports = outs.map((o) => agentJson(o.stdout));
    for (const r of reports) expect(r.steps[0]!.requests, r.agent_id).toBeGreaterThan(0);
    const detail = await runDetail(api.url, fleet.runId);
    expectCoordinatorExit(coord, detail);
    expect(detail.curve[0]!.errors).toBe(0);
    expect(detail.curve[0]!.requests).toBeGreaterThan(0);
    // The server's view: every request over TLS, HTTP/1.1 (neither asked for HTTP/2).
    const lines = nginx.logSince(from);
    expect(lines.length).toBeGreaterThanOrEqual(reports.reduce((a, r) => a + r.recorded, 0));
    expect(lines.every((l) => /^\d+ TLSv1\.[23] HTTP\/1\.1$/.test(l)), lines.slice(0, 3).join('\n')).toBe(true);
  }, 300_000);

  it('--insecure --http2: an agent warns that the certificate is not checked and speaks HTTP/2 only', async () => {
    const from = nginx.logSize();
    const fleet = await startCoordinator(api.url, tlsUrl(), 1, '4', ['--insecure', '--http2']);
    const agent = await startAgent(api.url, fleet.runId, 'h2-native', {}, 240_000, 'native').done;
    const coord = await fleet.coordinator.done;
    expect(agent.code, agent.stderr).toBe(0);
    expectCoordinatorExit(coord, await runDetail(api.url, fleet.runId));
    expect(agent.stderr).toContain(`warning: the plan says --insecure: the certificate of localhost:${nginx.port} is not checked`);
    const recorded = agentJson(agent.stdout).recorded;
    expect(recorded).toBeGreaterThan(0);
    const lines = nginx.logSince(from);
    expect(lines.length).toBeGreaterThanOrEqual(recorded);
    expect(lines.every((l) => /^\d+ TLSv1\.[23] HTTP\/2\.0$/.test(l)), lines.slice(0, 3).join('\n')).toBe(true);
  }, 300_000);

  it('a self-signed target without --insecure or --ca-file in the plan: the agent says the fix and never joins — the plan still waits, no step scheduled', async () => {
    const fleet = await startCoordinator(api.url, tlsUrl(), 1, '2');
    try {
      const agent = await startAgent(api.url, fleet.runId, 'untrusted', {}, 240_000, 'native').done;
      expect(agent.code).toBe(1);
      expect(agent.stderr).toContain(UNTRUSTED_CERTIFICATE);
      expect(agent.stderr).toContain('to the coordinator (`kneeboard sweep … --agents N`)');
      expect(agent.stderr).toContain('this agent did not join the run');
      // Checked before joining: the plan never counted on it, so its first step was never scheduled
      // (before, it was, and ended partial: "left before reporting").
      const s = await status(fleet.runId);
      expect(s.started).toBe(false);
      expect(s.agents).toEqual([]);
      expect(s.steps.filter((st) => st.finished || st.partial)).toEqual([]);
      expect((await runAgents(api.url, fleet.runId)).agents).toEqual([]);
    } finally {
      // The coordinator still waits for an agent that can; Ctrl-C ends it.
      fleet.coordinator.child.kill('SIGINT');
    }
    const coord = await fleet.coordinator.done;
    expect(coord.stderr).not.toContain('partial step');
  }, 300_000);

  it('the plan an agent would join is read without joining: 404 naming the id for a run without one', async () => {
    const res = await fetch(`${api.url}/api/v1/runs/00000000-0000-4000-8000-000000000000/agents/plan`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(ApiError.parse(await res.json()).field).toBe('id');
    const bad = await fetch(`${api.url}/api/v1/runs/not-a-run/agents/plan`, { method: 'POST' });
    expect(bad.status).toBe(400);
    expect(ApiError.parse(await bad.json()).field).toBe('params.id');
  });
});
