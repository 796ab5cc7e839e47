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
}, 180_000);
afterAll(async () => {
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

// A bound on a hang, not on speed: on a loaded 2-core box one CLI run was seen to take 22–30 s.
const CLI_MS = 120_000;
const compare = (...args: string[]) => runCli(['compare', '--api', api.url, ...args], CLI_MS).done;

describe('kneeboard compare: the CI gate', { timeout: 2 * CLI_MS }, () => {
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

describe('kneeboard compare --slo: capacity within an SLO, and its gate', { timeout: 2 * CLI_MS }, () => {
  // The synthetic runs' medians: 20 ms up to 4 (W = 4, S = 20 ms), 40 at 8; ×1.2 for v1.7.0. Within
  // p50 ≤ 30 ms both hold at 4 and break at 8, but v1.7.0 serves 0.85× the QPS there: −15%.
  const slower15 = ['--base', '', '--head', '', '--fail-on-regression', '30%', '--slo', 'p50<=30ms'];
  const args = (...extra: string[]) => {
    const a = [...slower15, ...extra];
    a[1] = base;
    a[3] = slower;
    return a;
  };

  it('reports the capacity change and fails (exit 1) on a significant drop of at least the threshold', async () => {
    const r = await compare(...args('--fail-on-capacity-drop', '5%'));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('CAPACITY:\n  - v1.7.0 serves −15% [');
    expect(r.stdout).toContain('] within p50<=30ms: 170 against 200 req/s (1 base and 1 head run, interval from the brackets)');
    expect(r.stdout).toContain('FAIL: significant capacity drop of 5% or more');
    // The table's own gate passes at 30%: the capacity drop alone failed it.
    expect(r.stdout).toContain('PASS: no significant regression');
  });

  it('passes (exit 0) a drop under the threshold, and says so', async () => {
    const r = await compare(...args('--fail-on-capacity-drop', '20%'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('PASS: no significant capacity drop of 20% or more');
  });

  it('puts the capacity change in the JSON, next to the gate', async () => {
    const r = await compare(...args('--fail-on-capacity-drop', '5%', '--json'));
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout) as { capacity: Array<{ change: number; basis: string; base: { qps: number }; head: { qps: number } }>; gate: { failed: boolean; reasons: string[] } };
    expect(json.capacity).toHaveLength(1);
    expect(json.capacity[0]).toMatchObject({ basis: 'brackets', base: { qps: 200 }, head: { qps: 170 } });
    expect(json.capacity[0]!.change).toBeCloseTo(-0.15, 9);
    expect(json.gate.failed).toBe(true);
    expect(json.gate.reasons).toEqual([expect.stringMatching(/^v1\.7\.0 serves −15%/)]);
  });

  it.each([
    [['--fail-on-capacity-drop', '5%'], '--fail-on-capacity-drop: needs --slo'],
    [['--slo', 'p98<=50ms'], '--slo: SLO clause "p98<=50ms": unknown metric "p98"'],
  ])('exits 2 naming the flag for %j', async (extra, message) => {
    const r = await compare('--base', base, '--head', slower, ...extra);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

