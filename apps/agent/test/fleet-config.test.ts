import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fleetConfigProblem } from '../src/fleet/coordinate.ts';
import { PlanExtension } from '../src/fleet/plan-extension.ts';
import { SweepConfig, type SweepInput } from '../src/sweep/config.ts';

const cfgOf = (o: Partial<SweepInput>) =>
  SweepConfig.parse({ target: 'http://127.0.0.1:9/', levels: [2, 4, 16], durationMs: 1_000, run: { service: 's', release: 'r' }, api: 'http://127.0.0.1:9', web: 'http://127.0.0.1:9', ...o });

describe('a sweep handed to several agents', () => {
  it('takes --before-level, --refine and --repeat; refuses a binary body, which cannot travel in the plan', () => {
    expect(fleetConfigProblem(cfgOf({ beforeLevel: 'true', refine: true, repeat: 2 }))).toBeNull();
    expect(fleetConfigProblem(cfgOf({ request: { body: Buffer.from([0, 255]) } }))).toMatch(/binary request body/);
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
