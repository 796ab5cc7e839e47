import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunCost, type RunDetail } from '@kneeboard/contracts';
import { runSweep } from '../src/sweep/run-sweep.ts';
import { SweepError } from '../src/sweep/sweep-error.ts';
import { startTargetProcess, type TargetProcess } from './support/demo-target-process.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';

// Issue 28, end to end with real parts: the demo target in its own process burning known CPU per
// request (--cpu-ms), read through its /metrics and through /proc/PID, stored by the real API.
const CPU_MS = 4;
let api: ApiProcess;
let target: TargetProcess;

beforeAll(async () => {
  [api, target] = await Promise.all([startApi(mkdtempSync(join(tmpdir(), 'kb-agent-cost-')), await freePort()), startTargetProcess(['--workers', '4', '--service-ms', '5', '--cpu-ms', String(CPU_MS)])]);
}, 60_000);
afterAll(async () => {
  await Promise.all([api.stop(), target.stop()]);
});

const sweep = (release: string, extra: Record<string, unknown>) =>
  runSweep({
    target: `${target.url}/`,
    levels: [1, 2],
    durationMs: 3_000,
    warmupMs: 500,
    engine: 'node',
    run: { service: 'cost-test', release },
    api: api.url,
    spoolDir: null,
    ...extra,
  });

async function costOf(runId: string): Promise<{ cost: RunCost; detail: RunDetail }> {
  const cost = RunCost.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}/cost`)).json());
  return { cost, detail: await api.run(runId) };
}

/** What holds whatever the box's load: every level measured, and the figures exactly what the stored values give. */
function expectCostFollowsCurve(cost: RunCost, detail: RunDetail) {
  expect(cost.levels.map((l) => l.level)).toEqual([1, 2]);
  for (const l of cost.levels) {
    const p = detail.curve.find((x) => x.level === l.level)!;
    expect(l.seconds).toBeGreaterThanOrEqual(2);
    expect(l.cores_used).toBeGreaterThan(0);
    expect(l.peak_memory_bytes).toBeGreaterThan(10 * 1024 * 1024); // a Node process's resident set
    expect(l.qps_per_core).toBe(p.qps / l.cores_used!);
    expect(l.cpu_seconds_per_1k).toBe(((l.cores_used! * p.window_s) / p.requests) * 1000);
    // Each request burns CPU_MS of CPU in the target (plus serving it and the scrapes): a generous band.
    expect(l.cpu_seconds_per_1k!).toBeGreaterThan(CPU_MS * 0.8);
    expect(l.cpu_seconds_per_1k!).toBeLessThan(CPU_MS * 10);
  }
  expect(cost.levels[0]!.efficiency_per_core).toBe(1);
}

describe('the agent reads what the server spends during each step', () => {
  it('--metrics-url: the target’s /metrics every second; each level’s cost follows the known CPU per request', async () => {
    const result = await sweep('metrics-url', { metricsUrl: `${target.url}/metrics`, cores: 2 });
    expect(result.status).toBe('finished');
    const { cost, detail } = await costOf(result.runId);
    expect(cost.levels.every((l) => l.source === 'metrics-url' && l.cores_available === 2)).toBe(true);
    expectCostFollowsCurve(cost, detail);
  }, 60_000);

  it('--target-pid: /proc of the target process gives the same kind of figures', async () => {
    const result = await sweep('pid', { targetPid: target.child.pid });
    const { cost, detail } = await costOf(result.runId);
    expect(cost.levels.every((l) => l.source === 'process' && l.cores_available === null)).toBe(true);
    expectCostFollowsCurve(cost, detail);
  }, 60_000);

  it('an unreachable --metrics-url fails the sweep before it starts, naming the flag; a pid that does not exist likewise', async () => {
    const port = await freePort();
    const err = await sweep('dead', { metricsUrl: `http://127.0.0.1:${port}/metrics` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SweepError);
    expect((err as SweepError).message).toMatch(new RegExp(`^--metrics-url http://127\\.0\\.0\\.1:${port}/metrics: cannot read it \\(ECONNREFUSED\\)`));
    const pidErr = await sweep('dead', { targetPid: 2 ** 22 + 17 }).catch((e: unknown) => e);
    expect((pidErr as SweepError).message).toMatch(/^--target-pid 4194321: cannot read it/);
    // Nothing was created: the source is checked before the run.
    const listed = (await (await fetch(`${api.url}/api/v1/runs?service=cost-test&release=dead`)).json()) as { runs: unknown[] };
    expect(listed.runs).toEqual([]);
  }, 60_000);

  it('a source that dies mid-sweep is a named gap in the step’s notes, and the sweep goes on', async () => {
    // A relay in front of the target's /metrics that starts failing once the second level begins.
    let failing = false;
    const warnings: string[] = [];
    const relay: Server = createServer((req, res) => {
      if (failing) {
        res.writeHead(500).end('down');
        return;
      }
      void fetch(`${target.url}/metrics`).then(async (r) => res.writeHead(200, { 'content-type': 'text/plain' }).end(await r.text()));
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/metrics`;
    try {
      const result = await runSweep(
        { target: `${target.url}/`, levels: [1, 2], durationMs: 3_000, warmupMs: 500, engine: 'node', run: { service: 'cost-test', release: 'gap' }, api: api.url, spoolDir: null, metricsUrl: relayUrl },
        { reporter: { stepStarted: (s) => void (failing = s.level === 2), warn: (m) => warnings.push(m) } },
      );
      // The person running the sweep is told too, naming the source.
      expect(warnings.some((w) => w.startsWith(`--metrics-url ${relayUrl}, level 2: cpu: no samples between`))).toBe(true);
      expect(result.status).toBe('finished');
      const { cost } = await costOf(result.runId);
      const [level1, level2] = cost.levels;
      expect(level1!.notes).toEqual([]);
      expect(level1!.cores_used).toBeGreaterThan(0);
      // Level 2 is stored with its gap named (and the reason), and no figure made up for it.
      expect(level2!.level).toBe(2);
      expect(level2!.notes.join('\n')).toMatch(/^cpu: no samples between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d \(HTTP 500\)/m);
      expect(level2!.cores_used).toBeNull();
    } finally {
      relay.close();
    }
  }, 60_000);
});
