import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { demoTargetArgs } from './support/demo-target-process.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';
import { ENGINES } from './support/engines.ts';
import { runCli } from './support/run-cli.ts';
import { expectVerdictFollowsFigures } from './support/verdict.ts';
import type { LevelSummary } from '../src/index.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'kb-agent-api-'));
let apiPort: number;
let api: ApiProcess;
let target: DemoTarget;

// Start-up and the sweeps get room for a loaded box (the API alone was seen to take over 30 s to
// start there): bounds on a hang, not on speed.
beforeAll(async () => {
  apiPort = await freePort();
  [api, target] = await Promise.all([startApi(dataDir, apiPort, 120_000), startDemoTarget({ workers: 8, serviceMs: 10, port: 0 })]);
}, 150_000);
afterAll(async () => {
  await api.stop();
  await target.close();
});

interface JsonLevel {
  level: number;
  requests: number;
  qps: number;
  health: { target: number; generator_limited: boolean };
}

/** Per level, the rows the API counts inside each window, next to the agent's own count. */
async function countsAgree(runId: string, levels: JsonLevel[]) {
  const detail = await api.run(runId);
  const stored = Object.fromEntries(detail.curve.map((p) => [p.level, p.requests]));
  const reported = Object.fromEntries(levels.map((l) => [l.level, l.requests]));
  expect(stored).toEqual(reported);
  return detail;
}

describe('the agent CLI against the real API (ClickHouse embedded) on 127.0.0.1', () => {
  it.each(ENGINES)('on the %s engine: loses and doubles nothing when the API dies mid-sweep: the rest waits in the spool, `kneeboard flush` delivers it', async (engine) => {
    const spoolDir = mkdtempSync(join(tmpdir(), 'kb-agent-spool-'));
    const sweep = runCli(
      ['sweep', '--target', `${target.url}/`, '--levels', '2,4,8', '--duration', '1s', '--warmup', '0', '--service', 'demo', '--release', 'spool', '--api', api.url, '--spool-dir', spoolDir, '--delivery-timeout', '1s', '--engine', engine, '--json'],
      40_000,
    );
    // Kill the API hard in the middle of level 4, once the run exists and batches are flowing.
    const deadline = Date.now() + 15_000;
    while (!/\|\s+2 \|/.test(sweep.stderr())) {
      if (Date.now() > deadline) throw new Error(`no first row: ${sweep.stderr()}`);
      await sleep(20);
    }
    await sleep(400);
    await api.stop('SIGKILL');
    const { code, stdout, stderr } = await sweep.done;
    expect(code).toBe(1);
    expect(stderr).toContain(`wait in ${spoolDir}`);
    expect(stderr).toContain(`kneeboard flush --spool-dir ${spoolDir}`);
    const report = JSON.parse(stdout);
    expect(report.status).toBe('finished');
    expect(report.upload.lost_events).toBe(0);
    expect(report.upload.spooled_events).toBeGreaterThan(0);
    expect(report.upload.uploaded + report.upload.spooled_events).toBe(report.upload.recorded);
    const runDir = join(spoolDir, report.run_id);
    expect(readdirSync(runDir).some((f) => f.endsWith('.finish.json'))).toBe(true);
    // The agent is gone: its claim on the directory went with it.
    expect(existsSync(join(runDir, 'owner.json'))).toBe(false);

    // The API comes back on the same data; flush sends the leftovers in order, with their batch ids.
    api = await startApi(dataDir, apiPort);
    const flush = await runCli(['flush', '--spool-dir', spoolDir, '--api', api.url]).done;
    expect(flush.code).toBe(0);
    expect(flush.stdout).toMatch(/flushed .*: 1 runs, \d+ calls delivered/);
    expect(existsSync(runDir)).toBe(false);

    const detail = await countsAgree(report.run_id, report.levels);
    expect(detail.run.status).toBe('finished');
    expect(detail.curve.map((p) => p.level)).toEqual([2, 4, 8]);
    expect(detail.curve.every((p) => !p.in_progress && p.health?.target === p.level)).toBe(true);
    const total = report.levels.reduce((n: number, l: JsonLevel) => n + l.requests, 0);
    // Enough requests that the spool held several batches (949 in all seen on a busy box, so not 1,000).
    expect(total).toBeGreaterThan(200);
    // A second flush has nothing to send: nothing is counted twice.
    const again = await runCli(['flush', '--spool-dir', spoolDir, '--api', api.url]).done;
    expect(again.stdout).toMatch(/0 runs, 0 calls delivered/);
    await countsAgree(report.run_id, report.levels);
  });

  it.each(ENGINES)("on the %s engine: a request mix's names reach storage, each name's count per level the agent's own", async (engine) => {
    // The CLI's name lists repeat a value (joined blocks keep both): ClickHouse refused such a batch
    // once the names went as an Arrow dictionary, and only a sweep into real storage showed it.
    const dir = mkdtempSync(join(tmpdir(), 'kb-agent-mix-'));
    const mix = join(dir, 'mix.json');
    writeFileSync(mix, JSON.stringify([
      { name: 'search', method: 'GET', path: '/?q=1', weight: 3 },
      { name: 'cart', method: 'GET', path: '/?cart=1', weight: 2 },
      { name: 'checkout', method: 'GET', path: '/?checkout=1', weight: 1 },
    ]));
    const { code, stdout, stderr } = await runCli(
      ['sweep', '--target', `${target.url}/`, '--requests', mix, '--levels', '2,4', '--duration', '1s', '--warmup', '0', '--service', 'demo', '--release', `mix-${engine}`, '--api', api.url, '--engine', engine, '--json', '--spool-dir', join(dir, 'spool')],
      60_000,
    ).done;
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as { run_id: string; levels: LevelSummary[] };
    await countsAgree(report.run_id, report.levels as unknown as JsonLevel[]);
    for (const name of ['search', 'cart', 'checkout']) {
      const res = await fetch(`${api.url}/api/v1/runs/${report.run_id}?name=${name}`);
      expect(res.status).toBe(200);
      const curve = ((await res.json()) as { curve: Array<{ level: number; requests: number }> }).curve;
      const mine = report.levels.map((l) => [l.level, l.by_name?.find((n) => n.name === name)?.requests ?? 0]);
      expect(curve.map((p) => [p.level, p.requests])).toEqual(mine);
    }
  }, 120_000);

  it('sweeps another knob: --param workers restarts the target with --workers {level} before each level', async () => {
    const port = await freePort();
    const pidFile = join(mkdtempSync(join(tmpdir(), 'kb-agent-pid-')), 'target.pid');
    const start = demoTargetArgs(['--port', String(port), '--service-ms', '20', '--workers', '{level}']).join(' ');
    // Stop the previous target and wait until it is gone, then start the next in the background.
    const command =
      `if [ -f ${pidFile} ]; then pid=$(cat ${pidFile}); kill $pid; while kill -0 $pid 2>/dev/null; do sleep 0.05; done; fi; ` +
      `${process.execPath} ${start} >/dev/null 2>&1 & echo $! > ${pidFile}`;
    try {
      const run = runCli(
        ['sweep', '--target', `http://127.0.0.1:${port}/`, '--param', 'workers', '--levels', '1,2,4', '--concurrency', '8', '--before-level', command,
          '--ready-url', `http://127.0.0.1:${port}/healthz`, '--duration', '1s', '--warmup', '200ms', '--service', 'demo', '--release', 'workers', '--api', api.url, '--json',
          '--spool-dir', mkdtempSync(join(tmpdir(), 'kb-agent-spool-'))],
        120_000,
      );
      const { code, stdout, stderr } = await run.done;
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(/\|\s+workers \|\s+QPS \|/);
      const report = JSON.parse(stdout);
      expect(report).toMatchObject({ load_model: 'closed', parameter: 'workers' });
      const detail = await countsAgree(report.run_id, report.levels);
      expect(detail.run).toMatchObject({ parameter: 'workers', load_model: 'closed' });
      // W slots × 20 ms at concurrency 8: 50, 100, 200 req/s — the ceiling grows with the knob. Timers
      // never fire early, so W workers can never pass W × 50 req/s, nor have more than W requests in
      // service: QPS × compute ≤ W (p50 for the mean). How close a busy box lets it come is speed,
      // measured in bench/.
      const workers = [1, 2, 4];
      for (const [i, p] of detail.curve.entries()) {
        expect(p.qps).toBeLessThan(workers[i]! * 50 * 1.1);
        const busySlots = (p.qps * p.compute_p50_ms!) / 1000;
        expect(busySlots / workers[i]!, JSON.stringify(p)).toBeLessThan(1.1);
      }
      expect(detail.curve.every((p) => p.health?.target === 8)).toBe(true);
      // Whether the agent held 8 is its own verdict (the box's speed is in it): it follows from its figures.
      for (const l of report.levels as LevelSummary[]) expectVerdictFollowsFigures(l, { windowMs: 1_000 });
    } finally {
      if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM');
    }
  }, 240_000);

  it('fails clearly when the target is not ready after --before-level', async () => {
    const port = await freePort();
    const { code, stderr } = await runCli([
      'sweep', '--target', `http://127.0.0.1:${port}/`, '--param', 'workers', '--levels', '1', '-c', '2', '--before-level', 'true',
      '--ready-timeout', '500ms', '--service', 'demo', '--release', 'x', '--api', api.url,
    ]).done;
    expect(code).toBe(1);
    expect(stderr).toContain(`error: the target was not ready 0.5 s after --before-level for workers 1: http://127.0.0.1:${port}/ last gave ECONNREFUSED`);
  });
});
