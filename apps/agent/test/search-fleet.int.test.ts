import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Capacity, RunDetail } from '@kneeboard/contracts';
import { startTargetProcess, type TargetProcess } from './support/demo-target-process.ts';
import { runAgents, startAgent, startCoordinator } from './support/fleet-harness.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';

// The real API (its own process, embedded ClickHouse), the demo target (4 workers × 100 ms, its own
// process), the coordinator and two agents as CLI processes, all on loopback.
let api: ApiProcess;
let target: TargetProcess;
beforeAll(async () => {
  api = await startApi(mkdtempSync(join(tmpdir(), 'kb-search-fleet-')), await freePort(), 120_000);
  target = await startTargetProcess(['--workers', '4', '--service-ms', '100']);
}, 180_000);
afterAll(async () => {
  await target?.stop();
  await api?.stop();
});

interface SearchJson {
  answer: { done: true; capacity: { level: number } | null; bracket: { holds: { level: number } | null; breaks: { level: number } | null }; over: number; unclear: number[] };
  observations: Array<{ level: number; judgement: string }>;
}

const SLO = 'p50<=250ms';
const capacityOf = async (runId: string) =>
  Capacity.parse(((await (await fetch(`${api.url}/api/v1/runs/${runId}/analysis?slo=${encodeURIComponent(SLO)}`)).json()) as { capacity: unknown }).capacity);

describe('kneeboard sweep --slo … --search --agents 2 --repeat 2', () => {
  it('decides each next level from the step both agents measured, pooled over the repeats, and never loads the target past the first break', async () => {
    // p50 ≈ 100 ms up to concurrency 4, ≈ c·25 ms above, so p50 ≤ 250 ms holds up to about 10.
    // 100 ms, so an agent's event loop lagging tens of ms on a busy box does not flag the level.
    // The answer depends on this box's timers (a flagged level ends the search: a plan takes a
    // level once), so the checks are the search's invariants and its agreement with the API.
    const fleet = await startCoordinator(api.url, `${target.url}/work`, 2, '2', ['--slo', SLO, '--search', '--repeat', '2']);
    const agents = ['s1', 's2'].map((id) => startAgent(api.url, fleet.runId, id));
    const outs = await Promise.all(agents.map((a) => a.done));
    const coord = await fleet.coordinator.done;
    for (const o of outs) expect(o.code, o.stderr).toBe(0);
    const printed = JSON.parse(coord.stdout.trim().split('\n').at(-1)!) as { run_ids: string[]; steps: Array<{ partial: boolean }>; search: SearchJson };
    // The coordinator fails exactly when a step was partial (an agent late on a starved box).
    expect(coord.code, coord.stderr).toBe(printed.steps.some((s) => s.partial) ? 1 : 0);
    const { answer, observations } = printed.search;
    expect(answer.done).toBe(true);
    expect(coord.stderr).toContain(`capacity within ${SLO}: `);

    // One observation per level measured (both repeats pooled in it), from the first level given;
    // a plan takes a level once per run.
    const levels = observations.map((o) => o.level);
    expect(levels[0]).toBe(2);
    expect(new Set(levels).size).toBe(levels.length);
    // At most --max-over (1) level at or past the first that broke, as the planner reports it, and
    // as the target saw it: never more requests in flight, from both agents together, than the
    // highest level run.
    const firstBreak = observations.find((o) => o.judgement === 'breaks');
    if (firstBreak) {
      expect(levels.filter((l) => l >= firstBreak.level)).toEqual([firstBreak.level]);
      expect(answer.over).toBe(1);
    }
    expect((await target.stats()).maxInFlight).toBeLessThanOrEqual(Math.max(...levels));

    // Both repeats measured every level the search ran, each split between the two agents.
    expect(printed.run_ids).toHaveLength(2);
    for (const runId of printed.run_ids) {
      const capacity = await capacityOf(runId);
      expect(capacity.levels.map((l) => l.level)).toEqual([...levels].sort((a, b) => a - b));
      const parts = (await runAgents(api.url, runId)).steps;
      for (const level of levels) expect(parts.filter((s) => s.level === level).map((s) => s.agent_id).sort()).toEqual(['s1', 's2']);
    }
    // Pooled: the capacity level holds in both repeats; the upper end broke (or stayed unclear) in at least one.
    const judged = await Promise.all(printed.run_ids.map(capacityOf));
    const judgementsAt = (level: number) => judged.map((c) => c.levels.find((l) => l.level === level)?.judgement);
    if (answer.capacity) expect(judgementsAt(answer.capacity.level)).toEqual(['holds', 'holds']);
    if (answer.bracket.breaks) expect(judgementsAt(answer.bracket.breaks.level).some((j) => j === 'breaks' || j === 'unclear' || j === 'skipped')).toBe(true);

    // The run page's search: the API replays it from the run's tags and steps, in the order the coordinator ran them.
    const detail = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${fleet.runId}`)).json());
    expect(detail.search?.slos).toEqual([SLO]);
    expect(detail.search?.tried.map((t) => t.level)).toEqual(levels);
    // (Its verdicts are this run's alone: the coordinator pooled both repeats, so they may differ where the repeats did.)
    // The live stream carries it too, to a viewer who asked for no SLO (a finished run: one snapshot, then `end`).
    const stream = await (await fetch(`${api.url}/api/v1/runs/${fleet.runId}/live`)).text();
    const snapshot = RunDetail.parse(JSON.parse(/event: snapshot\ndata: (.*)\n/.exec(stream)![1]!));
    expect(snapshot.search).toEqual(detail.search);
  }, 240_000);
});
