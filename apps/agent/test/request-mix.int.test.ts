import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
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
function route(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0]!;
  const ms = SERVICE_MS[path];
  hits[`${req.method} ${path}`] = (hits[`${req.method} ${path}`] ?? 0) + 1;
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
