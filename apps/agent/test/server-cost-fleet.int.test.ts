import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunCost } from '@kneeboard/contracts';
import { startTargetProcess, type TargetProcess } from './support/demo-target-process.ts';
import { runDetail, startAgent, startCoordinator } from './support/fleet-harness.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';

// Issue 28 with several agents: the coordinator reads the server once per run; the agents never do.
let api: ApiProcess;
let target: TargetProcess;
beforeAll(async () => {
  [api, target] = await Promise.all([startApi(mkdtempSync(join(tmpdir(), 'kb-agent-fleet-cost-')), await freePort()), startTargetProcess(['--workers', '4', '--service-ms', '5', '--cpu-ms', '3'])]);
}, 60_000);
afterAll(async () => {
  await Promise.all([api.stop(), target.stop()]);
});

describe('--agents N with --metrics-url', () => {
  it('the coordinator posts each settled step’s server metrics to the run, and the figures follow the curve', async () => {
    const fleet = await startCoordinator(api.url, `${target.url}/`, 2, '2,4', ['-d', '2500ms', '--metrics-url', `${target.url}/metrics`, '--cores', '1']);
    const agents = ['m1', 'm2'].map((id) => startAgent(api.url, fleet.runId, id));
    const outs = await Promise.all(agents.map((a) => a.done));
    for (const o of outs) expect(o.code, o.stderr).toBe(0);
    const coord = await fleet.coordinator.done;
    expect(coord.code, coord.stderr).toBe(0);

    const cost = RunCost.parse(await (await fetch(`${api.url}/api/v1/runs/${fleet.runId}/cost`)).json());
    const detail = await runDetail(api.url, fleet.runId);
    expect(cost.levels.map((l) => [l.level, l.source, l.cores_available])).toEqual([
      [2, 'metrics-url', 1],
      [4, 'metrics-url', 1],
    ]);
    for (const l of cost.levels) {
      const p = detail.curve.find((x) => x.level === l.level)!;
      expect(l.cores_used).toBeGreaterThan(0);
      expect(l.cpu_seconds_per_1k).toBe(((l.cores_used! * p.window_s) / p.requests) * 1000);
    }
  }, 240_000);
});
