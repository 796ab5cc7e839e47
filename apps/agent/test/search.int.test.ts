import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Capacity } from '@kneeboard/contracts';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { runSweep } from '../src/index.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';
import { runCli } from './support/run-cli.ts';

describe('kneeboard sweep --slo … --search: flags', () => {
  const base = ['sweep', '--target', 'http://127.0.0.1:9/', '--service', 'demo', '--release', 'v1'];
  it.each([
    [['--slo', 'p98<=50ms', '--search'], '--slo: SLO clause "p98<=50ms": unknown metric "p98"'],
    [['--slo', 'p99<=50', '--search'], '--slo: SLO clause "p99<=50": needs a unit'],
    [['--slo', 'p99<=50ms', '--slo', 'p99<=-1ms', '--search'], '--slo: SLO clause "p99<=-1ms": the threshold must not be negative'],
    [['--search'], '--search: needs --slo'],
    [['--slo', 'p99<=50ms', '--search', '--refine'], '--refine: cannot be combined with --search'],
    [['--slo', 'p99<=50ms', '--search', '--precision', 'fine'], '--precision'],
    [['--slo', 'p99<=50ms', '--search', '--max-over', '0'], '--max-over'],
  ])('exits 2 naming the flag and the clause for %j', async (extra, message) => {
    const { code, stderr } = await runCli([...base, ...extra], 20_000, { KNEEBOARD_CLI_SOURCE: '1' }).done;
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});

describe('kneeboard sweep --slo … --search against the demo target and the real API', () => {
  let api: ApiProcess;
  let target: DemoTarget;
  beforeAll(async () => {
    [api, target] = await Promise.all([startApi(mkdtempSync(join(tmpdir(), 'kb-search-api-')), await freePort()), startDemoTarget({ workers: 4, serviceMs: 40, port: 0 })]);
  });
  afterAll(async () => {
    await api?.stop();
    await target?.close();
  });

  it('grows until the SLO breaks, narrows the bracket, and never loads the target past the first break', async () => {
    target.resetStats();
    // W = 4 slots of 40 ms: p50 ≈ 40 ms up to concurrency 4, ≈ c·10 ms above, so p50 ≤ 100 ms
    // holds up to about 10. p50, not p99: a short level has the few dozen requests an interval on
    // p50 needs (p99 needs 500). 40 ms, so the client's own turnaround is small beside it and
    // Little's law does not flag the levels. The answer depends on this box's timers, so the
    // checks are the search's invariants, not the number.
    const result = await runSweep({
      target: `${target.url}/work`,
      levels: [2],
      durationMs: 600,
      warmupMs: 100,
      engine: 'node',
      slo: ['p50<=100ms'],
      search: true,
      run: { service: 'demo', release: 'v1' },
      api: api.url,
      web: 'http://web.test',
      spoolDir: mkdtempSync(join(tmpdir(), 'kb-search-spool-')),
    });
    const search = result.search!;
    expect(result.status).toBe('finished');
    expect(search.answer.done).toBe(true);
    const levels = search.observations.map((o) => o.level);
    expect(levels[0]).toBe(2);
    // At most one level at or past the first that broke, as the planner reports, and as the
    // target itself saw it: never more requests in flight than the highest level run.
    const firstBreak = search.observations.find((o) => o.judgement === 'breaks');
    if (firstBreak) {
      expect(levels.filter((l) => l >= firstBreak.level)).toEqual([firstBreak.level]);

      expect(search.answer.over).toBe(1);
    }
    expect(target.stats().maxInFlight).toBeLessThanOrEqual(Math.max(...levels));
    // The answer is what the API says of the same run: the capacity level holds there, the bracket's upper end does not.
    const res = await fetch(`${api.url}/api/v1/runs/${result.runId}/analysis?slo=${encodeURIComponent('p50<=100ms')}`);
    const capacity = Capacity.parse(((await res.json()) as { capacity: unknown }).capacity);
    const judgement = (level: number) => capacity.levels.find((l) => l.level === level)?.judgement;
    if (search.answer.capacity) expect(judgement(search.answer.capacity.level)).toBe('holds');
    // The upper end is a level that broke, or one that stayed unclear (or skipped) through its repeats.
    if (search.answer.bracket.breaks) expect(['breaks', 'unclear', 'skipped']).toContain(judgement(search.answer.bracket.breaks.level));
    // Every level the search measured is in the run (a re-run level once: its newer window replaced the first).
    expect(capacity.levels.map((l) => l.level)).toEqual([...new Set(levels)].sort((a, b) => a - b));
  }, 120_000);
});
