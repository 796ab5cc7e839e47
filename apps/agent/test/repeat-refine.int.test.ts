import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeApi } from '@kneeboard/agent-sdk/testing';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { runSweep, type SweepInput } from '../src/index.ts';

let fake: FakeApi;
let target: DemoTarget;
beforeEach(async () => {
  fake = await FakeApi.start();
  // W = 12 workers, 20 ms each: the knee is at 12, between the grid's 8 and 16.
  target = await startDemoTarget({ workers: 12, serviceMs: 20, port: 0 });
});
afterEach(async () => {
  await target.close();
  await fake.close();
});

const input = (overrides: Partial<SweepInput>): SweepInput => ({
  target: `${target.url}/work`,
  levels: [1, 2],
  durationMs: 500,
  warmupMs: 100,
  engine: 'node',
  run: { service: 'demo', release: 'v1', name: 'nightly' },
  api: fake.url,
  web: 'http://web.test',
  spoolDir: mkdtempSync(join(tmpdir(), 'kb-repeat-spool-')),
  ...overrides,
});

describe('kneeboard sweep --repeat', () => {
  it('records one run per repeat, tagged as one group, with the levels interleaved across the repeats', async () => {
    const result = await runSweep(input({ repeat: 3 }));
    expect(result.runIds).toHaveLength(3);
    expect(new Set(result.runIds).size).toBe(3);
    const bodies = fake.runs.map((r) => r.body);
    expect(bodies.map((b) => b.name)).toEqual(['nightly (repeat 1 of 3)', 'nightly (repeat 2 of 3)', 'nightly (repeat 3 of 3)']);
    expect(new Set(bodies.map((b) => b.tags?.repeat_group)).size).toBe(1);
    expect(bodies.every((b) => b.release === 'v1')).toBe(true);
    // Interleaved: every repeat measures level 1 before any measures level 2.
    const steps = result.runIds.map((id) => fake.finalSteps(id));
    const lastLevel1 = Math.max(...steps.map((s) => s.get(1)!.ended_at!));
    const firstLevel2 = Math.min(...steps.map((s) => s.get(2)!.started_at));
    expect(lastLevel1).toBeLessThanOrEqual(firstLevel2);
    // Every run got its own events, and the summary counts them all.
    const counts = result.runIds.map((id) => fake.events(id).length);
    expect(counts.every((n) => n > 0)).toBe(true);
    expect(result.upload.recorded).toBe(counts.reduce((a, b) => a + b, 0));
  }, 60_000);
});

describe('kneeboard sweep --refine', () => {
  it('adds levels inside the knee’s bracket (8, 16] at the end, and measures them', async () => {
    const grid = [1, 2, 4, 8, 16, 32];
    const result = await runSweep(input({ levels: grid, refine: true }));
    // On a quiet box the knee reads 16 and the levels added are 10, 11, 13; a busy one may move the
    // detected knee one grid step, so the check is that they fill one bracket next to W = 12.
    expect(result.refinedLevels.length).toBeGreaterThanOrEqual(2);
    const bracket = [[4, 8], [8, 16], [16, 32]].find(([a, b]) => result.refinedLevels.every((l) => l > a! && l < b!));
    expect(bracket).toBeDefined();
    expect(result.levels.map((l) => l.level)).toEqual([...grid, ...result.refinedLevels]);
    expect([...fake.finalSteps(result.runId).keys()].sort((a, b) => a - b)).toEqual([...grid, ...result.refinedLevels].sort((a, b) => a - b));
  }, 60_000);

  it('adds nothing when the grid already places the knee closely', async () => {
    const result = await runSweep(input({ levels: [1, 2, 4, 8, 10, 11, 12, 13, 14], refine: true, durationMs: 400 }));
    expect(result.refinedLevels).toEqual([]);
  }, 60_000);
});
