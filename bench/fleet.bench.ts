/**
 * Several agents, one run: does a run driven by three agents draw the curve one agent draws at the
 * same total load? The real API (its own process, embedded ClickHouse), the demo target (32 workers
 * × 20 ms: ceiling 1,600 req/s, so these levels are below the knee and the target is not the limit),
 * and every agent a CLI process. Rounds interleave one-agent and three-agent runs, so drift on the box
 * hits both alike. Per level: QPS and p50 of each, their ratio; the spread of the three agents' step
 * starts (the barrier); stored events against the agents' own counts.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/fleet.bench.ts        (FLEET_ENGINE=native for the Rust engine)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunAgents, RunDetail } from '@kneeboard/contracts';
import { startServerProcess } from '@kneeboard/api/testing';
import { KNEEBOARD, kneeboardCli as cli, startDemoTarget } from './agent-bench-lib.ts';
import { quantile, report } from './lib/report.ts';

const LEVELS = [6, 12, 24];
const AGENTS = 3;
const ROUNDS = Number(process.env.FLEET_ROUNDS ?? 3);
const ENGINE = process.env.FLEET_ENGINE ?? 'node';
const STEP = ['-d', '3s', '--warmup', '1s'];

const api = await startServerProcess({ KNEEBOARD_DATA_DIR: mkdtempSync(join(tmpdir(), 'kb-fleet-bench-')) }, 60_000);
const target = await startDemoTarget(['--workers', '32', '--service-ms', '20']);
const get = async <T>(path: string, schema: { parse: (x: unknown) => T }) => schema.parse(await (await fetch(`${api.url}/api/v1${path}`)).json());
const common = ['--target', `${target.url}/`, '-c', LEVELS.join(','), ...STEP, '--service', 'fleet-bench', '--api', api.url];

async function oneAgent(): Promise<RunDetail> {
  const r = await cli(['sweep', ...common, '--release', 'one-agent', '--engine', ENGINE, '--json', '--spool-dir', mkdtempSync(join(tmpdir(), 'kb-spool-'))]);
  if (r.code !== 0) throw new Error(`one agent: ${r.stderr}`);
  return get(`/runs/${(JSON.parse(r.stdout) as { run_id: string }).run_id}?exact=1`, RunDetail);
}

async function threeAgents(): Promise<{ detail: RunDetail; agents: RunAgents; reported: number }> {
  const child = spawn(process.execPath, [KNEEBOARD, 'sweep', ...common, '--release', 'three-agents', '--agents', String(AGENTS), '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const runId = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /--join ([0-9a-f-]{36})/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`coordinator exited ${code}: ${err}`)));
  });
  const agents = await Promise.all(Array.from({ length: AGENTS }, (_, i) => cli(['agent', '--api', api.url, '--join', runId, '--agent-id', `bench-${i + 1}`, '--engine', ENGINE, '--json'])));
  for (const a of agents) if (a.code !== 0) throw new Error(`agent: ${a.stderr}`);
  await new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  const reported = agents.reduce((n, a) => n + (JSON.parse(a.stdout.trim().split('\n').at(-1)!) as { recorded: number }).recorded, 0);
  return { detail: await get(`/runs/${runId}?exact=1`, RunDetail), agents: await get(`/runs/${runId}/agents`, RunAgents), reported };
}

type Sample = { qps1: number; qps3: number; p50_1: number; p50_3: number; spread: number; flagged3: boolean };
const samples = new Map<number, Sample[]>(LEVELS.map((l) => [l, []]));
const counts: Array<{ stored: number; reported: number }> = [];
const loads: number[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    loads.push(loadavg()[0]!);
    const one = await oneAgent();
    const three = await threeAgents();
    counts.push({ stored: three.agents.agents.reduce((n, a) => n + a.stored, 0), reported: three.reported });
    for (const level of LEVELS) {
      const p1 = one.curve.find((p) => p.level === level)!;
      const p3 = three.detail.curve.find((p) => p.level === level)!;
      const starts = three.agents.steps.filter((s) => s.level === level && s.started_at !== null).map((s) => s.started_at!);
      samples.get(level)!.push({ qps1: p1.qps, qps3: p3.qps, p50_1: p1.p50_ms!, p50_3: p3.p50_ms!, spread: Math.max(...starts) - Math.min(...starts), flagged3: p3.health?.generator_limited ?? false });
    }
    console.error(`round ${round + 1}/${ROUNDS} done`);
  }
} finally {
  await target.stop();
  await api.stop();
}

const med = (xs: number[]) => quantile(xs, 0.5);
const rows = LEVELS.map((level) => {
  const s = samples.get(level)!;
  return {
    concurrency: level,
    'qps 1 agent': med(s.map((x) => x.qps1)),
    'qps 3 agents': med(s.map((x) => x.qps3)),
    'qps ratio (median)': med(s.map((x) => x.qps3 / x.qps1)),
    'p50 ms 1 agent': med(s.map((x) => x.p50_1)),
    'p50 ms 3 agents': med(s.map((x) => x.p50_3)),
    'p50 ratio (median)': med(s.map((x) => x.p50_3 / x.p50_1)),
    'barrier spread ms (max)': Math.max(...s.map((x) => x.spread)),
    'barrier spread ms (median)': med(s.map((x) => x.spread)),
    'flagged (3 agents)': s.filter((x) => x.flagged3).length,
  };
});
report('fleet', rows, {
  rounds: ROUNDS,
  engine: ENGINE,
  step: STEP.join(' '),
  target: { workers: 32, service_ms: 20 },
  load_average_at_each_round: loads,
  events_stored_vs_reported: counts,
  samples: Object.fromEntries(samples),
});
const worst = Math.max(...rows.flatMap((r) => [Math.abs(r['qps ratio (median)'] - 1), Math.abs(r['p50 ratio (median)'] - 1)]));
console.log(`worst median difference, 3 agents vs 1: ${(worst * 100).toFixed(1)}% (target ≤ 5%); stored = reported in ${counts.filter((c) => c.stored === c.reported).length}/${counts.length} runs`);
