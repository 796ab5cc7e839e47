import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_FLEET_CA_PEM_CHARS } from '@kneeboard/contracts';
import { agentEngine } from '../src/fleet/agent-engine.ts';
import { fleetConfigProblem } from '../src/fleet/coordinate.ts';
import { planRequestOf } from '../src/fleet/plan-request.ts';
import { loadRequestMix } from '../src/mix/request-mix.ts';
import { PlanExtension } from '../src/fleet/plan-extension.ts';
import { SweepConfig, type SweepInput } from '../src/sweep/config.ts';

const cfgOf = (o: Partial<SweepInput>) =>
  SweepConfig.parse({ target: 'http://127.0.0.1:9/', levels: [2, 4, 16], durationMs: 1_000, run: { service: 's', release: 'r' }, api: 'http://127.0.0.1:9', web: 'http://127.0.0.1:9', ...o });

describe('a sweep handed to several agents', () => {
  it('takes --before-level, --refine and --repeat; refuses a binary body, which cannot travel in the plan', () => {
    expect(fleetConfigProblem(cfgOf({ beforeLevel: 'true', refine: true, repeat: 2 }))).toBeNull();
    expect(fleetConfigProblem(cfgOf({ request: { body: Buffer.from([0, 255]) } }))).toMatch(/binary request body/);
  });

  it('hands the whole request to the plan: the parsed mix (no file path), the HTTP version, the connections, the trust — a CA file as its PEM', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kb-plan-request-'));
    const mixPath = join(dir, 'mix.json');
    writeFileSync(mixPath, JSON.stringify([{ name: 'search', path: '/s?q=1', weight: 3, headers: { 'X-A': '1' } }, { name: 'cart', method: 'PUT', path: '/cart', body: { n: 1 } }]));
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    writeFileSync(join(dir, 'ca.pem'), pem);
    const request = planRequestOf(
      cfgOf({ target: 'https://127.0.0.1:9/x', requests: loadRequestMix(mixPath), request: { headers: { 'x-all': 'y' } }, http: '2', connections: 3, caFile: join(dir, 'ca.pem') }),
    );
    expect(request).toMatchObject({
      target: 'https://127.0.0.1:9/x',
      headers: { 'x-all': 'y' },
      requests: [
        { name: 'search', method: 'GET', path: '/s?q=1', headers: { 'x-a': '1' }, body: null, weight: 3 },
        { name: 'cart', method: 'PUT', path: '/cart', headers: { 'content-type': 'application/json' }, body: '{"n":1}', weight: 1 },
      ],
      http: '2',
      connections: 3,
      insecure: false,
      ca_pem: pem,
    });
    expect(JSON.stringify(request)).not.toContain(dir);

    // An agent builds the same mix from the plan alone: the entry's headers over the sweep's, names indexed, the PEM in a file of its own.
    // HTTP/2 in the plan: an agent on the Node engine says it cannot, rather than speak HTTP/1.1.
    expect(() => agentEngine(request, 'node', undefined)).toThrow(/--http2: needs the native engine/);
    const setup = agentEngine({ ...request, http: '1.1' }, 'node', undefined);
    try {
      expect(setup.mix!.names).toEqual(['search', 'cart']);
      expect([...setup.mix!.nameOf]).toEqual([0, 1]);
      expect(setup.mix!.weights).toEqual([3, 1]);
      expect(setup.mix!.requests.map((r) => [r.method, r.path, r.headers['x-all'], r.headers['x-a'], r.body])).toEqual([
        ['GET', '/s?q=1', 'y', '1', undefined],
        ['PUT', '/cart', 'y', undefined, '{"n":1}'],
      ]);
      expect(setup.request.tls!.caPem).toBe(pem);
      expect(readFileSync(setup.request.tls!.caFile!, 'utf8')).toBe(pem);
    } finally {
      setup.dispose();
    }
    expect(existsSync(setup.request.tls!.caFile!)).toBe(false);
  });

  it('refuses, naming the flag, what the plan cannot carry: a CA bundle past the bound', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kb-plan-request-'));
    const bundle = join(dir, 'bundle.pem');
    writeFileSync(bundle, `-----BEGIN CERTIFICATE-----\n${'A'.repeat(MAX_FLEET_CA_PEM_CHARS)}\n-----END CERTIFICATE-----\n`);
    expect(fleetConfigProblem(cfgOf({ target: 'https://127.0.0.1:9/', caFile: bundle }))).toMatch(/^--ca-file with --agents: must be at most 32 KiB/);
  });

  it('with --repeat measures each level in every run before the next level, the runs in order', () => {
    const ext = new PlanExtension(cfgOf({ repeat: 2 }), () => {}, new AbortController().signal);
    ext.setRuns(['run-a', 'run-b']);
    expect(ext.initialSteps().map((s) => [s.level, s.run_id])).toEqual([
      [2, 'run-a'],
      [2, 'run-b'],
      [4, 'run-a'],
      [4, 'run-b'],
      [16, 'run-a'],
      [16, 'run-b'],
    ]);
    expect([ext.repeatOf('RUN-B'), ext.repeatOf('run-a')]).toEqual([2, 1]);
  });

  it('plans every level up front when nothing must run between steps, and keeps the plan closed', () => {
    const ext = new PlanExtension(cfgOf({}), () => {}, new AbortController().signal);
    expect(ext.open).toBe(false);
    expect(ext.initialSteps().map((s) => s.level)).toEqual([2, 4, 16]);
  });

  it('with --before-level plans the first level only, then one level per extension once its command ran and the target answers, then closes', async () => {
    const target = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    try {
      const said: string[] = [];
      const ext = new PlanExtension(cfgOf({ target: url, beforeLevel: 'true', levels: [2, 4] }), (l) => said.push(l), new AbortController().signal);
      expect(ext.open).toBe(true);
      expect(ext.initialSteps().map((s) => s.level)).toEqual([2]);
      expect(await ext.next(async () => [])).toEqual({ kind: 'steps', steps: [{ level: 4, load: 4 }] });
      expect(said).toEqual(['--before-level for concurrency 4: true']);
      expect(await ext.next(async () => [])).toEqual({ kind: 'close' });
    } finally {
      target.close();
    }
  });

  it('with --before-level fails with the reason when the target is not ready after the command', async () => {
    const ext = new PlanExtension(cfgOf({ beforeLevel: 'true', levels: [2, 4], readyTimeoutMs: 500 }), () => {}, new AbortController().signal);
    await expect(ext.next(async () => [])).rejects.toThrow(/the target was not ready 0\.5 s after --before-level for concurrency 4/);
  });

  it('with --refine and no knee in the curve adds nothing and closes', async () => {
    const ext = new PlanExtension(cfgOf({ refine: true }), () => {}, new AbortController().signal);
    expect(ext.initialSteps().map((s) => s.level)).toEqual([2, 4, 16]);
    expect(await ext.next(async () => [])).toEqual({ kind: 'close' });
  });
});
