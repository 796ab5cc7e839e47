import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess, storeSyntheticRun } from '@kneeboard/api/testing';
import { gate } from '../src/compare/gate.ts';
import { runCli } from './support/run-cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'kb-gate-'));
let api: ServerProcess;
let base: string;
let same: string;
let slower: string;
let limited: string;

beforeAll(async () => {
  api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
  const service = 'gate-svc';
  base = await storeSyntheticRun(api.url, { seed: 1, service, release: 'v1.6.1' });
  same = await storeSyntheticRun(api.url, { seed: 2, service, release: 'v1.6.2' });
  slower = await storeSyntheticRun(api.url, { seed: 3, service, release: 'v1.7.0', qpsScale: 0.85, latencyScale: 1.2 });
  // 30% slower at 16 — where its agent was the limit, so the gate must not call it.
  const health = { target: 16, in_flight_mean: 11, late_sends: 0, missed_sends: 0, agent_cpu_cores: 1, event_loop_delay_p99_ms: 60, generator_limited: true, reason: 'Only 11 of 16 requests were on the wire on average.' };
  limited = await storeSyntheticRun(api.url, { seed: 4, service, release: 'v1.8.0', health: { 16: health } });
}, 60_000);
afterAll(async () => {
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const compare = (...args: string[]) => runCli(['compare', '--api', api.url, ...args], 30_000).done;

describe('kneeboard compare: the CI gate', () => {
  it('passes (exit 0) with a verdict table when nothing moved, resolving release labels', async () => {
    const r = await compare('--service', 'gate-svc', '--base', 'v1.6.1', '--head', 'v1.6.2', '--fail-on-regression', '5%');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('### gate-svc: v1.6.2 vs v1.6.1 — no significant change');
    expect(r.stdout.match(/^\| (1|2|4|8|16) \|/gm)).toHaveLength(5);
    expect(r.stdout).toContain('PASS: no significant regression');
    expect(r.stdout).toContain(`/compare?base=${base}&head=${same}`);
  });

  it('fails (exit 1) on a significant regression beyond the threshold', async () => {
    const r = await compare('--base', base, '--head', slower, '--fail-on-regression', '5%');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('— regression');
    expect(r.stdout).toMatch(/max throughput −1\d%/);
    expect(r.stdout).toContain('FAIL: significant regression of 5% or more');
  });

  it('passes when the regression is smaller than the threshold', async () => {
    const r = await compare('--base', base, '--head', slower, '--fail-on-regression', '30%');
    expect(r.code).toBe(0);
  });

  it('lists a generator-limited level as not comparable, with the reason, and neither passes nor fails on it', async () => {
    const r = await compare('--base', base, '--head', limited, '--fail-on-regression', '5%');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').find((l) => l.startsWith('| 16 |'))).toContain('⚠️');
    expect(r.stdout).toContain('NOT COMPARABLE (these levels neither pass nor fail the gate):');
    expect(r.stdout).toContain('v1.8.0 at concurrency 16: head — the agent flagged concurrency 16 generator-limited: Only 11 of 16 requests were on the wire on average.');
  });

  it('compares groups of repeats given as ID,ID', async () => {
    const r = await compare('--base', `${base},${same}`, '--head', slower, '--json');
    const body = JSON.parse(r.stdout) as Parameters<typeof gate>[0];
    expect(body.base_runs.map((run) => run.id)).toEqual([base, same]);
    expect(body.heads[0]!.noise.base_runs).toBe(2);
  });

  it('compares every run of a release given as release:SERVICE@RELEASE, and names an unknown one', async () => {
    const r = await compare('--base', 'release:gate-svc@v1.6.1', '--head', 'release:gate-svc@v1.7.0', '--json');
    expect(r.code).toBe(1);
    const body = JSON.parse(r.stdout) as Parameters<typeof gate>[0];
    expect(body.base_runs.map((run) => run.id)).toEqual([base]);
    expect(body.heads[0]!.runs.map((run) => run.id)).toEqual([slower]);
    const unknown = await compare('--base', 'release:gate-svc@v9', '--head', same);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('no finished run of release "v9" of service "gate-svc"');
    const bad = await compare('--base', 'release:gate-svc', '--head', same);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('release:SERVICE@RELEASE');
  });

  it('gives JSON with the gate result', async () => {
    const r = await compare('--base', base, '--head', slower, '--head', same, '--json');
    const body = JSON.parse(r.stdout) as Parameters<typeof gate>[0] & { gate: { failed: boolean; reasons: string[] } };
    expect(body.heads).toHaveLength(2);
    expect(body.gate).toEqual(gate(body));
    expect(body.gate.failed).toBe(true);
    expect(body.gate.reasons).toHaveLength(1);
  });

  it('exits 3 when it cannot compare, and 2 on a bad flag, naming the problem', async () => {
    const unknown = await compare('--service', 'gate-svc', '--base', 'v0.0.1', '--head', 'v1.6.2');
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('no finished run of gate-svc v0.0.1');
    const noService = await compare('--base', 'v1.6.1', '--head', 'v1.6.2');
    expect(noService.code).toBe(3);
    expect(noService.stderr).toContain('give --service');
    const down = await runCli(['compare', '--api', 'http://127.0.0.1:9', '--base', base, '--head', same], 30_000).done;
    expect(down.code).toBe(3);
    expect(down.stderr).toContain('cannot reach the Kneeboard API at http://127.0.0.1:9');
    const badFlag = await compare('--base', base, '--head', same, '--fail-on-regression', 'lots');
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--fail-on-regression');
  });
});
