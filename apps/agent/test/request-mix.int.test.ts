import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { createSecureServer, createServer as createH2cServer, type Http2SecureServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeApi } from '@kneeboard/agent-sdk/testing';
import { runSweep, type SweepInput } from '../src/index.ts';
import type { LevelSummary } from '../src/load/level-stats.ts';
import { loadRequestMix } from '../src/mix/request-mix.ts';
import { chiSquare, CHI2_CRITICAL_1E6 } from './support/chi-square.ts';
import { ENGINES } from './support/engines.ts';
import { runCli } from './support/run-cli.ts';

/** Service time by path: three endpoints a mix tells apart by name. */
const SERVICE_MS: Record<string, number> = { '/fast': 1, '/medium': 3, '/slow': 6 };

/**
 * A target that routes by path: each endpoint answers after its own service time and says that
 * time in Server-Timing (`compute;dur=`), so each name's compute p50 is known exactly.
 */
const hits: Record<string, number> = {};
/** Requests by the HTTP version they came in (`1.1`, `2.0`): an HTTP/2 case proves it spoke HTTP/2. */
const versions: Record<string, number> = {};
function route(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0]!;
  const ms = SERVICE_MS[path];
  hits[`${req.method} ${path}`] = (hits[`${req.method} ${path}`] ?? 0) + 1;
  versions[req.httpVersion] = (versions[req.httpVersion] ?? 0) + 1;
  const arrived = performance.now();
  req.resume();
  req.on('end', () => {
    if (ms === undefined) {
      res.writeHead(404, { 'content-length': '0' }).end();
      return;
    }
    holdUntil(arrived + ms, () => res.writeHead(200, { 'server-timing': `compute;dur=${ms}`, 'content-length': '2' }).end('ok'));
  });
}

/**
 * Calls `done` once the monotonic clock has passed `until`: a timer alone may fire early (libuv
 * measures it from the loop's cached time, which a busy loop leaves behind), and then the client
 * could measure less than the service time.
 */
function holdUntil(until: number, done: () => void): void {
  const left = until - performance.now();
  if (left <= 0) done();
  else setTimeout(() => holdUntil(until, done), left);
}

/** The same target over plain HTTP and over TLS (a self-signed certificate made here with openssl). */
let target: Server;
let tlsTarget: Server;
let url = '';
let tlsUrl = '';
const dir = mkdtempSync(join(tmpdir(), 'kb-mix-int-'));
beforeAll(async () => {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  target = createServer(route);
  tlsTarget = createTlsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, route);
  for (const s of [target, tlsTarget]) {
    s.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  }
  url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  tlsUrl = `https://127.0.0.1:${(tlsTarget.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of [target, tlsTarget]) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

let fake: FakeApi;
beforeEach(async () => {
  fake = await FakeApi.start();
});
afterEach(async () => {
  await fake.close();
});

const WEIGHTS = { fast: 5, medium: 3, slow: 2 };
function mixFile(origin = url): string {
  const path = join(dir, 'mix.json');
  writeFileSync(
    path,
    JSON.stringify([
      { name: 'fast', path: '/fast?q=1', weight: WEIGHTS.fast },
      { name: 'medium', url: `${origin}/medium`, weight: WEIGHTS.medium },
      { name: 'slow', method: 'POST', path: '/slow', body: { cart: [1, 2] }, weight: WEIGHTS.slow },
    ]),
  );
  return path;
}

const input = (overrides: Partial<SweepInput>): SweepInput => ({
  target: `${url}/`,
  levels: [4],
  durationMs: 1_500,
  warmupMs: 300,
  run: { service: 'mix', release: 'r1' },
  api: fake.url,
  spoolDir: mkdtempSync(join(tmpdir(), 'kb-mix-spool-')),
  ...overrides,
});

/** Per name: the server's own time read exactly, latency never below it, counts by the weights. */
function expectMixFollowed(level: LevelSummary, serviceOf: Record<string, number>, weightOf: Record<string, number>): void {
  const byName = level.by_name!;
  expect(byName.map((n) => n.name)).toEqual(Object.keys(weightOf));
  for (const n of byName) {
    expect(n.errors, n.name).toBe(0);
    // The compute time each endpoint reports is the one its name's requests carry: names are not mixed up.
    // (Read from a histogram with 3 significant digits: within 0.1%.)
    expect(Math.abs(n.compute_p50_ms! - serviceOf[n.name]!), `${n.name}: ${n.compute_p50_ms}`).toBeLessThanOrEqual(serviceOf[n.name]! * 0.0011);
    // The target holds each request at least its service time: a busy box only adds to it.
    expect(n.p50_ms!, n.name).toBeGreaterThanOrEqual(serviceOf[n.name]!);
  }
  expect(byName.reduce((a, n) => a + n.requests, 0)).toBe(level.requests);
  const counts = byName.map((n) => n.requests);
  expect(level.requests).toBeGreaterThan(100);
  expect(chiSquare(counts, Object.values(weightOf)), JSON.stringify(counts)).toBeLessThan(CHI2_CRITICAL_1E6[counts.length - 1]!);
}

/** Every uploaded event carries its request's name, and the window's events per name are the table's counts. */
function expectEventsNamed(runId: string, level: LevelSummary): void {
  const events = fake.events(runId);
  expect(events.length).toBeGreaterThan(0);
  const names = new Set(level.by_name!.map((n) => n.name));
  for (const e of events) expect(names.has(e.name!), String(e.name)).toBe(true);
  const w = fake.finalSteps(runId).get(level.level)!;
  const inWindow = events.filter((e) => e.ts >= w.measure_from && e.ts <= w.ended_at!);
  for (const n of level.by_name!) expect(inWindow.filter((e) => e.name === n.name).length, n.name).toBe(n.requests);
}

describe.each(ENGINES)('a request mix on the %s engine', (engine) => {
  const service = { fast: 1, medium: 3, slow: 6 };

  it('closed loop: each connection picks its next request by weight; every name has its own latency', async () => {
    const mix = loadRequestMix(mixFile());
    const result = await runSweep(input({ engine, requests: mix }));
    expect(result.engine).toBe(engine);
    expectMixFollowed(result.levels[0]!, service, WEIGHTS);
    // The run records the mix: its file, names and shares.
    expect(fake.runs[0]!.body.tags).toMatchObject({ requests_file: 'mix.json', requests: 'fast=50%, medium=30%, slow=20%', requests_count: '3' });
    expectEventsNamed(result.runId, result.levels[0]!);
  });

  it('open loop: each arrival picks its request by weight', async () => {
    const mix = loadRequestMix(mixFile());
    const result = await runSweep(input({ engine, requests: mix, loadModel: 'open', levels: [400] }));
    expectMixFollowed(result.levels[0]!, service, WEIGHTS);
    expectEventsNamed(result.runId, result.levels[0]!);
    expect(result.levels[0]!.health.missed_sends).toBe(0);
  });

  it('over TLS: the same mix, each request written into the TLS session as it is into a socket', async () => {
    const mix = loadRequestMix(mixFile(tlsUrl));
    const result = await runSweep(input({ engine, requests: mix, target: `${tlsUrl}/`, insecure: true }));
    expectMixFollowed(result.levels[0]!, service, WEIGHTS);
    expectEventsNamed(result.runId, result.levels[0]!);
  });

  it('a HAR: the page’s requests by count, named method + path, replayed on the target', async () => {
    const mix = loadRequestMix(new URL('./fixtures/mix-shop.har', import.meta.url).pathname);
    for (const k of Object.keys(hits)) delete hits[k];
    const result = await runSweep(input({ engine, requests: mix }));
    // GET /fast is two requests of the HAR (3 + 2 times), /medium 3 times, POST /slow twice.
    expectMixFollowed(result.levels[0]!, { 'GET /fast': 1, 'GET /medium': 3, 'POST /slow': 6 }, { 'GET /fast': 5, 'GET /medium': 3, 'POST /slow': 2 });
    // Nothing else reached the target (the third-party requests were left out; POST kept its method).
    expect(Object.keys(hits).sort()).toEqual(['GET /fast', 'GET /medium', 'POST /slow']);
  });
});

describe('kneeboard sweep --requests from the command line', () => {
  const sweep = (extra: string[]) =>
    runCli(['sweep', '--target', `${url}/`, '--service', 'mix', '--release', 'cli', '--api', fake.url, '-c', '2', '--duration', '300ms', '--warmup', '0', '--spool-dir', mkdtempSync(join(tmpdir(), 'kb-mix-spool-')), ...extra], 30_000).done;

  it('refuses a bad mix file with exit 2, naming the entry and the field, before creating a run', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ name: 'fast', path: '/fast' }, { name: 'cart', url: 'http://127.0.0.1:1/cart', weight: -2 }]));
    const r = await sweep(['--requests', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('entry 2 ("cart"): weight: must be more than 0');
    // A url on another origin than the target's: named too.
    writeFileSync(bad, JSON.stringify([{ name: 'cart', url: 'http://127.0.0.1:1/cart' }]));
    const other = await sweep(['--requests', bad]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/--requests: entry 1 \("cart"\): url: http:\/\/127\.0\.0\.1:1 is not the target's origin/);
    expect(fake.runs).toHaveLength(0);
  });

  it('sweeps a mix and prints a line per name under the level', async () => {
    const r = await sweep(['--requests', mixFile(), '--engine', 'native']);
    expect(r.code, r.stderr).toBe(0);
    for (const name of ['fast', 'medium', 'slow']) expect(r.stdout).toMatch(new RegExp(`↳ ${name}: [\\d,.]+ req/s, p50 [\\d,.]+ ms, p99 [\\d,.]+ ms`));
  });
});

/**
 * HTTP/2 (native engine only): each request of the mix has its own header block, built once with
 * no dynamic-table state, so streams of different requests interleave on one connection and each
 * still reaches its own endpoint. The same routes, served by Node's HTTP/2 servers (its
 * compatibility API): h2c (prior knowledge) and h2 over TLS (ALPN).
 */
describe('a request mix over HTTP/2 on the native engine', () => {
  const service = { fast: 1, medium: 3, slow: 6 };
  let h2c: Http2Server;
  let h2tls: Http2SecureServer;
  let h2cUrl = '';
  let h2tlsUrl = '';
  beforeAll(async () => {
    h2c = createH2cServer(route as never);
    h2tls = createSecureServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')), allowHTTP1: true }, route as never);
    for (const s of [h2c, h2tls]) await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    h2cUrl = `http://127.0.0.1:${(h2c.address() as AddressInfo).port}`;
    h2tlsUrl = `https://127.0.0.1:${(h2tls.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    // (Closing an HTTP/2 server waits for its sessions, which the engine has closed on exit.)
    for (const s of [h2c, h2tls]) s.close();
  });
  beforeEach(() => {
    for (const k of Object.keys(versions)) delete versions[k];
  });

  it('--http 2 over h2c, closed loop: many streams on one connection, each name its own endpoint and share', async () => {
    const mix = loadRequestMix(mixFile(h2cUrl));
    const result = await runSweep(input({ engine: 'native', http: '2', requests: mix, target: `${h2cUrl}/`, levels: [8], threads: 1 }));
    expect(result.engine).toBe('native');
    expectMixFollowed(result.levels[0]!, service, WEIGHTS);
    expectEventsNamed(result.runId, result.levels[0]!);
    // Everything the target saw (the preflight included) came over HTTP/2.
    expect(Object.keys(versions)).toEqual(['2.0']);
  });

  it('--http auto over TLS, open loop: the server picks h2 by ALPN; each arrival picks its request by weight', async () => {
    const mix = loadRequestMix(mixFile(h2tlsUrl));
    const result = await runSweep(input({ engine: 'native', http: 'auto', requests: mix, target: `${h2tlsUrl}/`, insecure: true, loadModel: 'open', levels: [400] }));
    expectMixFollowed(result.levels[0]!, service, WEIGHTS);
    expectEventsNamed(result.runId, result.levels[0]!);
    expect(result.levels[0]!.health.missed_sends).toBe(0);
    // The engine's requests came over HTTP/2; HTTP/1.1 was at most the `auto` preflight's one request.
    expect(versions['2.0']).toBeGreaterThanOrEqual(result.levels[0]!.requests);
    expect(versions['1.1'] ?? 0).toBeLessThanOrEqual(1);
  });

  it('kneeboard sweep --requests with --http2 from the command line: accepted, a line per name', async () => {
    const r = await runCli(
      ['sweep', '--target', `${h2cUrl}/`, '--service', 'mix', '--release', 'cli-h2', '--api', fake.url, '-c', '4', '--duration', '300ms', '--warmup', '0',
        '--spool-dir', mkdtempSync(join(tmpdir(), 'kb-mix-spool-')), '--requests', mixFile(h2cUrl), '--http2'],
      30_000,
    ).done;
    expect(r.code, r.stderr).toBe(0);
    for (const name of ['fast', 'medium', 'slow']) expect(r.stdout).toMatch(new RegExp(`↳ ${name}: [\\d,.]+ req/s, p50 [\\d,.]+ ms, p99 [\\d,.]+ ms`));
    expect(Object.keys(versions)).toEqual(['2.0']);
  });
});
