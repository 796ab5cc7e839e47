import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusReadResponse, RunCost, type LevelCost, type RunDetail } from '@kneeboard/contracts';
import { runSweep } from '../src/sweep/run-sweep.ts';
import { existsSync } from 'node:fs';
import { makeCgroup } from './support/cgroup-v2.ts';
import { startTargetProcess, type TargetProcess } from './support/demo-target-process.ts';
import { ProcReference } from './support/proc-reference.ts';
import { startPrometheus, type PrometheusProcess } from './support/prometheus-process.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';

// Issue 28's accuracy target, with real parts: the demo target burns known CPU per request
// (--cpu-ms) in its own process, and every mode's cores used per level must lie within 5% of what
// /proc/PID/stat shows over the same window — read here ten times a second, independently of the
// agent. The modes: the agent scraping the target's /metrics, the agent reading /proc itself, and a
// real Prometheus server scraping the target (asked by the agent after each step, and by the API
// for a run that is already finished).
let api: ApiProcess;
let target: TargetProcess;
let prom: PrometheusProcess;
let proc: ProcReference;

beforeAll(async () => {
  [api, target] = await Promise.all([startApi(mkdtempSync(join(tmpdir(), 'kb-agent-accuracy-')), await freePort(), 90_000), startTargetProcess(['--workers', '4', '--service-ms', '5', '--cpu-ms', '8'])]);
  proc = new ProcReference(target.child.pid!);
  prom = await startPrometheus({ target: new URL(target.url).host });
}, 180_000);
afterAll(async () => {
  proc?.stop();
  await Promise.all([api?.stop(), target?.stop(), prom?.stop()]);
});

/** A short bounded sweep: two levels, 1 s of warm-up and 5 s measured each. */
const sweep = (release: string, extra: Record<string, unknown>) =>
  runSweep({ target: `${target.url}/`, levels: [4, 8], durationMs: 5_000, warmupMs: 1_000, engine: 'node', run: { service: 'accuracy', release }, api: api.url, spoolDir: null, ...extra });

async function costOf(runId: string): Promise<{ cost: RunCost; detail: RunDetail }> {
  return { cost: RunCost.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}/cost`)).json()), detail: await api.run(runId) };
}

/**
 * The window a level's cores used stands for: its values are one a second for the seconds t inside
 * the measured window, each the CPU from t−1 to t (the agent reads on the clock's whole seconds and
 * reads the counter between reads as growing evenly), so together they span from one second before
 * the first to the last.
 */
function measuredSpan(step: RunDetail['steps'][number]): { fromMs: number; toMs: number } {
  return { fromMs: Math.ceil(step.measure_from / 1000) * 1000 - 1000, toMs: Math.floor(step.ended_at! / 1000) * 1000 };
}

/**
 * Prometheus reads at its own phase: the counter's value at second t is its last sample at or
 * before t, so a level's increases span from the last sample before its first second's start to
 * the last sample before its end — found here from the samples' own timestamps.
 */
async function prometheusSpan(step: RunDetail['steps'][number]): Promise<{ fromMs: number; toMs: number }> {
  const { fromMs, toMs } = measuredSpan(step);
  const range = Math.ceil((toMs - fromMs) / 1000) + 5;
  const q = encodeURIComponent(`process_cpu_seconds_total{job="target"}[${range}s]`);
  const body = (await (await fetch(`${prom.url}/api/v1/query?query=${q}&time=${toMs / 1000}`)).json()) as { data: { result: Array<{ values: Array<[number, string]> }> } };
  const times = body.data.result[0]!.values.map(([t]) => Math.round(t * 1000));
  const lastAtOrBefore = (ms: number) => Math.max(...times.filter((t) => t <= ms));
  return { fromMs: lastAtOrBefore(fromMs), toMs: lastAtOrBefore(toMs) };
}

/**
 * A busy box can hold the agent's 1 s timer back past a whole second: that second has no value and
 * is named as a gap ("cpu: no samples between 13:24:51 and 13:24:52", seen in a clean-clone CI run),
 * not filled with a rate across it. One such second a level is the box, not the reader; the level's
 * figure is still the mean of the seconds read, and must still agree with /proc.
 */
function isLateRead(note: string): boolean {
  const m = /^(?:cpu|mem): no samples between (\d\d):(\d\d):(\d\d) and (\d\d):(\d\d):(\d\d)$/.exec(note);
  if (!m) return false;
  const [h1, m1, s1, h2, m2, s2] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const span = (h2 * 3600 + m2 * 60 + s2 - (h1 * 3600 + m1 * 60 + s1) + 86_400) % 86_400;
  return span <= 1;
}

const diffs: string[] = [];
afterAll(() => console.log(`cores used against /proc:\n${diffs.join('\n')}`));

/** Every level within 5% of /proc over the window its values cover. */
async function expectWithin5Percent(levels: readonly LevelCost[], detail: RunDetail, source: LevelCost['source'], allowedNote?: RegExp): Promise<void> {
  expect(levels.map((l) => l.level)).toEqual([4, 8]);
  for (const l of levels) {
    const step = detail.steps.find((s) => s.level === l.level)!;
    const { fromMs, toMs } = source === 'prometheus' ? await prometheusSpan(step) : measuredSpan(step);
    const reference = proc.coresBetween(fromMs, toMs);
    expect(l.source).toBe(source);
    expect(l.notes.filter((n) => !allowedNote?.test(n) && !isLateRead(n))).toEqual([]);
    expect(l.notes.filter(isLateRead).length, l.notes.join('; ')).toBeLessThanOrEqual(1);
    expect(l.seconds).toBeGreaterThanOrEqual(4);
    // The target burnt real CPU (8 ms a request), so the comparison is of something.
    expect(reference).toBeGreaterThan(0.05);
    const diff = Math.abs(l.cores_used! - reference) / reference;
    diffs.push(`${source} level ${l.level}: ${l.cores_used!.toFixed(4)} vs ${reference.toFixed(4)} (${(diff * 100).toFixed(2)}%)`);
    expect(diff, `${source} level ${l.level}: ${l.cores_used} cores against /proc's ${reference}`).toBeLessThan(0.05);
  }
}

describe('cores used per level agree with /proc/PID/stat within 5%', () => {
  it('--metrics-url: the target’s /metrics scraped by the agent every second', async () => {
    const result = await sweep('metrics-url', { metricsUrl: `${target.url}/metrics` });
    const { cost, detail } = await costOf(result.runId);
    await expectWithin5Percent(cost.levels, detail, 'metrics-url');
  }, 90_000);

  it('--target-pid: /proc of the target read by the agent every second; then the API reads the finished run from Prometheus', async () => {
    const result = await sweep('pid', { targetPid: target.child.pid });
    const { cost, detail } = await costOf(result.runId);
    await expectWithin5Percent(cost.levels, detail, 'process');

    // The same finished run, read again by the API from the Prometheus that scraped the target all along: it replaces the seconds.
    const res = await fetch(`${api.url}/api/v1/runs/${result.runId}/server-metrics/prometheus`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: prom.url, queries: ['cpu=rate(process_cpu_seconds_total{job="target"})'] }),
    });
    expect(res.status).toBe(200);
    const read = PrometheusReadResponse.parse(await res.json());
    expect(read.levels.map((l) => [l.level, l.notes])).toEqual([
      [4, []],
      [8, []],
    ]);
    const again = await costOf(result.runId);
    await expectWithin5Percent(again.cost.levels, again.detail, 'prometheus');
    expect(again.cost.levels.every((l) => l.peak_memory_bytes! > 10 * 1024 * 1024)).toBe(true);
  }, 90_000);

  it('--prometheus: a real Prometheus scraping the target, asked by the agent after each step (default queries)', async () => {
    const result = await sweep('prometheus', { prometheus: prom.url, cores: 2 });
    expect(result.status).toBe('finished');
    const { cost, detail } = await costOf(result.runId);
    await expectWithin5Percent(cost.levels, detail, 'prometheus');
    for (const l of cost.levels) {
      expect(l.cores_available).toBe(2);
      expect(l.peak_memory_bytes).toBeGreaterThan(10 * 1024 * 1024); // the target's resident set
    }
  }, 90_000);

  it('--cgroup: a real cgroup v2 directory holding the target, its cpu.stat read by the agent every second', async () => {
    const cgroup = makeCgroup(`kb-accuracy-${process.pid}`, target.child.pid!);
    try {
      const result = await sweep('cgroup', { cgroup: cgroup.dir });
      const { cost, detail } = await costOf(result.runId);
      // A hybrid host keeps the memory controller on v1: no memory.current, so the memory is a named gap and the CPU still counts.
      const noMemory = existsSync(`${cgroup.dir}/memory.current`) ? undefined : /^mem: no samples between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d \(no series matches cgroup_memory_current_bytes\)$/;
      await expectWithin5Percent(cost.levels, detail, 'cgroup', noMemory);
      if (noMemory) for (const l of cost.levels) expect(l.peak_memory_bytes).toBeNull();
    } finally {
      cgroup.remove();
    }
  }, 90_000);
});
