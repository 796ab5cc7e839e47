import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { describe, expect, it } from 'vitest';
import { CostComparison, type LevelComparison, type LevelCost, type MetricDelta, type RunCost } from '@kneeboard/contracts';
import { compareCost, compareMarkdown } from '../src/compare/index.ts';

/** A run's cost: cores used per level (null: no CPU read there). */
function cost(cores: Record<number, number | null>): RunCost {
  const levels: LevelCost[] = Object.entries(cores).map(([level, used]) => ({
    level: Number(level),
    source: 'metrics-url',
    cores_used: used,
    cores_available: 8,
    peak_memory_bytes: null,
    qps_per_core: null,
    cpu_seconds_per_1k: null,
    efficiency_per_core: null,
    seconds: 10,
    notes: [],
  }));
  return { levels, verdict: null } as RunCost;
}

const delta = (base: number, head: number, ci: [number, number] | null): MetricDelta => ({ base, head, change: head / base - 1, ci_low: ci?.[0] ?? null, ci_high: ci?.[1] ?? null, verdict: 'improvement' });

function level(l: number, qps: MetricDelta, flagged = false): LevelComparison {
  const same: MetricDelta = { base: 10, head: 10, change: 0, ci_low: -0.01, ci_high: 0.01, verdict: 'no significant change' };
  return { level: l, in_base: true, in_head: true, flags: flagged ? [{ side: 'head', run_id: '00000000-0000-4000-8000-000000000001', reason: 'generator-limited' }] : [], qps, p50_ms: same, p99_ms: same };
}

describe('compareCost: what the change cost the server, per level', () => {
  it('one run a side: seed 002’s sentence, the QPS interval the comparison made, no CPU interval', () => {
    const c = CostComparison.parse(compareCost([cost({ 32: 1.0, 64: 2.0 })], [cost({ 32: null, 64: 2.62 })], [level(32, delta(1000, 1100, [0.05, 0.15])), level(64, delta(1000, 1080, [0.05, 0.11]))], 'concurrency'));
    // 32: the head read no CPU there, so nothing is said about it.
    expect(c.levels.map((l) => l.level)).toEqual([64]);
    const at64 = c.levels[0]!;
    expect(at64.sentence).toBe('+8.0% [+5.0%…+11.0%] QPS for +31% CPU at 64');
    expect(at64.cores_used).toEqual({ base: 2, head: 2.62, change: expect.closeTo(0.31, 12), ci_low: null, ci_high: null });
    expect(at64.qps_per_core.change).toBeCloseTo(1.08 / 1.31 - 1, 12);
    expect(at64.qps_per_core.base).toBeCloseTo(500, 12);
    expect(c.basis).toBe('single run');
    expect(c.note).toContain('no interval: single run');
  });

  it('repeats: a t interval on the log of the cores, the sides’ geometric means', () => {
    const base = [cost({ 64: 2.0 }), cost({ 64: 2.1 }), cost({ 64: 1.9 })];
    const head = [cost({ 64: 2.6 }), cost({ 64: 2.7 }), cost({ 64: 2.5 })];
    const c = compareCost(base, head, [level(64, delta(1000, 1080, [0.05, 0.11]))], 'threads')!;
    const gm = (xs: number[]) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
    const logVar = (xs: number[]) => {
      const m = Math.log(gm(xs));
      return xs.reduce((a, x) => a + (Math.log(x) - m) ** 2, 0) / (xs.length - 1);
    };
    const [b, h] = [[2.0, 2.1, 1.9], [2.6, 2.7, 2.5]];
    const diff = Math.log(gm(h) / gm(b));
    const half = tQuantile(0.975, 4) * Math.sqrt(logVar(b) / 3 + logVar(h) / 3);
    const cores = c.levels[0]!.cores_used;
    expect(cores.change).toBeCloseTo(gm(h) / gm(b) - 1, 12);
    expect(cores.ci_low).toBeCloseTo(Math.exp(diff - half) - 1, 12);
    expect(cores.ci_high).toBeCloseTo(Math.exp(diff + half) - 1, 12);
    expect(c.basis).toBe('repeats');
    expect(c.levels[0]!.sentence).toMatch(/^\+8\.0% \[\+5\.0%…\+11\.0%\] QPS for \+30% \[\+\d+%…\+\d+%\] CPU at threads 64$/);
  });

  it('a flagged level is stated, never called; no CPU on a side: nothing at all', () => {
    const c = compareCost([cost({ 8: 1 })], [cost({ 8: 2 })], [level(8, delta(100, 150, null), true)], 'concurrency')!;
    expect(c.levels[0]).toMatchObject({ not_comparable: true, sentence: '+50% QPS for +100% CPU at 8 (not comparable: an agent was the limit)' });
    expect(compareCost([cost({})], [cost({ 8: 2 })], [level(8, delta(100, 150, null))], 'concurrency')).toBeNull();
    expect(compareCost([cost({ 8: 0 })], [cost({ 8: 2 })], [level(8, delta(100, 150, null))], 'concurrency')).toBeNull();
  });

  it('the Markdown lists the sentences under the table, escaped; a head without cost has no such section', async () => {
    const { CompareResponse } = await import('@kneeboard/contracts');
    const run = (id: string, release: string) => ({ id, service: 'svc', release, name: '', git_sha: null, load_model: 'closed', parameter: 'concurrency', tags: {}, labels: [], note: '', status: 'finished', created_at: 1, finished_at: 2, agent_host: null, agent_cores: null });
    const noise = { base_runs: 1, head_runs: 1, basis: 'within-run only', run_to_run: null, note: 'n' };
    const overall = { max_qps: { ...delta(1000, 1080, [0.05, 0.11]), base_level: 64, head_level: 64 }, knee: { base: null, head: null, change: null, base_bracket: null, head_bracket: null, within_grid: false }, p99_at_base_knee: { ...delta(1, 1, null), level: null }, verdict: 'improvement', summary: 's' };
    const head = { run: run('00000000-0000-4000-8000-000000000002', 'v*2'), runs: [run('00000000-0000-4000-8000-000000000002', 'v*2')], noise, levels: [level(64, delta(1000, 1080, [0.05, 0.11]))], overall };
    const report = CompareResponse.parse({ base: run('00000000-0000-4000-8000-000000000001', 'v1'), base_runs: [run('00000000-0000-4000-8000-000000000001', 'v1')], heads: [head], settings: { confidence: 0.95, min_effect: 0.05, resamples: 2000 } });
    expect(compareMarkdown(report, 'concurrency')).not.toContain('What it costs');
    const withCost = { ...report, heads: [{ ...report.heads[0]!, cost: compareCost([cost({ 64: 2 })], [cost({ 64: 2.62 })], report.heads[0]!.levels, 'concurrency')! }] };
    const md = compareMarkdown(CompareResponse.parse(withCost), 'concurrency');
    expect(md).toContain('**What it costs:**\n\n- \\+8.0% \\[+5.0%…+11.0%\\] QPS for +31% CPU at 64\n');
  });
});
