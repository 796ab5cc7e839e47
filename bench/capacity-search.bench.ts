/**
 * `kneeboard sweep --slo … --search` against the demo target (W workers × S ms, its own process)
 * and the real API, closed loop and open loop (`-R`, Poisson arrivals): the capacity found beside
 * the analytic answer, the bracket, the levels run beside a doubling grid of the same precision,
 * and the levels run past the first break — from the search's own report, from the run's steps
 * in the API, and from the target's served counter (its /stats, polled; a level is a stretch of
 * serving between idle gaps).
 *
 *   closed loop: p99 ≤ k·S holds while c·S/W ≤ k·S, i.e. up to c* = k·W;
 *   open loop:   the M/D/W queue's arrival rate at which p99 of the time in system crosses k·S,
 *                found here by simulation (bisection on the rate, 400,000 arrivals a point).
 *
 * Run: cd bench && npx tsx capacity-search.bench.ts  → bench/results/capacity-search.json
 * (CS_MODELS=closed|open, CS_ENGINE=native|node, CS_DURATION=3s, CS_WORKERS=8, CS_SERVICE_MS=20, CS_K_CLOSED=2.6, CS_K_OPEN=2)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunDetail } from '@kneeboard/contracts';
import { startServerProcess } from '@kneeboard/api/testing';
import { prng } from '@kneeboard/analysis/testing';
import { kneeboardCli as cli, startDemoTarget } from './agent-bench-lib.ts';

const W = Number(process.env.CS_WORKERS ?? 8);
const S = Number(process.env.CS_SERVICE_MS ?? 20);
const STEP = ['-d', process.env.CS_DURATION ?? '3s', '--warmup', '500ms'];
const PRECISION = 0.05;
const ENGINE = process.env.CS_ENGINE ?? 'native';

/** p99 of time in system for an M/D/W FIFO queue at `rate` req/s (service S ms), simulated. */
function mdwP99(rate: number, arrivals = 400_000, seed = 1): number {
  const rand = prng(seed);
  const free = new Float64Array(W); // when each server is next free, ms
  const times = new Float64Array(arrivals);
  let t = 0;
  for (let i = 0; i < arrivals; i++) {
    t += (-Math.log(1 - rand()) * 1000) / rate;
    let k = 0;
    for (let j = 1; j < W; j++) if (free[j]! < free[k]!) k = j;
    const start = Math.max(t, free[k]!);
    free[k] = start + S;
    times[i] = start + S - t;
  }
  const sorted = times.subarray(arrivals / 10).sort(); // the first tenth is the warm-up
  return sorted[Math.floor(0.99 * (sorted.length - 1))]!;
}

/** The rate at which the simulated p99 crosses `threshold` ms: bisection on [0, W·1000/S). */
function mdwCapacity(threshold: number): number {
  let lo = 1;
  let hi = (W * 1000) / S;
  for (let i = 0; i < 30; i++) {
    const mid = (lo + hi) / 2;
    if (mdwP99(mid) <= threshold) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** A doubling grid from `start` to the first level past c*, then the last doubling's bracket at steps of the precision. */
function doublingGrid(start: number, capacity: number): number {
  let level = start;
  let n = 1;
  while (level <= capacity) [level, n] = [level * 2, n + 1];
  const lo = level / 2;
  return n + Math.ceil((level - lo) / Math.max(1, PRECISION * lo)) - 1;
}

interface Observation {
  level: number;
  judgement: string;
  qps: number;
}
interface SearchReport {
  observations: Observation[];
  answer: { capacity: { level: number; qps: number } | null; bracket: { holds: { level: number } | null; breaks: { level: number } | null }; over: number };
}

/** The target's served counter, polled: stretches of serving separated by ≥ 150 ms idle, each with its served count and span. */
function watchTarget(url: string) {
  const samples: Array<{ t: number; served: number; inFlight: number }> = [];
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const s = (await (await fetch(`${url}/stats`)).json()) as { served: number; inFlight: number };
      samples.push({ t: performance.now(), served: s.served, inFlight: s.inFlight });
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return async () => {
    stop = true;
    await loop;
    const stretches: Array<{ served: number; ms: number; maxInFlight: number }> = [];
    let cur: { served: number; from: number; to: number; maxInFlight: number } | null = null;
    let idleSince: number | null = null;
    for (let i = 1; i < samples.length; i++) {
      const d = samples[i]!.served - samples[i - 1]!.served;
      const busy = d > 0 || samples[i]!.inFlight > 0;
      if (busy) {
        idleSince = null;
        if (cur === null) cur = { served: 0, from: samples[i - 1]!.t, to: samples[i]!.t, maxInFlight: 0 };
        cur.served += d;
        cur.to = samples[i]!.t;
        cur.maxInFlight = Math.max(cur.maxInFlight, samples[i]!.inFlight);
      } else if (cur !== null) {
        idleSince ??= samples[i]!.t;
        if (samples[i]!.t - idleSince >= 150) {
          stretches.push({ served: cur.served, ms: cur.to - cur.from, maxInFlight: cur.maxInFlight });
          cur = null;
        }
      }
    }
    if (cur) stretches.push({ served: cur.served, ms: cur.to - cur.from, maxInFlight: cur.maxInFlight });
    // A poll of /stats alone is not a level: a stretch needs a few requests served.
    return stretches.filter((s) => s.served >= 20);
  };
}

const api = await startServerProcess({ KNEEBOARD_DATA_DIR: mkdtempSync(join(tmpdir(), 'kb-cs-bench-')) }, 60_000);
const target = await startDemoTarget(['--workers', String(W), '--service-ms', String(S)]);
const loadStart = loadavg();

async function one(model: 'closed' | 'open', k: number) {
  const threshold = k * S;
  const analytic = model === 'closed' ? k * W : mdwCapacity(threshold);
  // The demo target's service time is exact (no jitter) and its slots first come, first served, so
  // in a closed loop requests finish in rounds of W every S ms and each waits ⌈c/W⌉ rounds:
  // p99 = ⌈c/W⌉·S exactly, and p99 ≤ k·S holds up to ⌊k⌋·W. k·W is the mean's answer, not the tail's.
  const exact = model === 'closed' ? Math.floor(k) * W : analytic;
  const start = model === 'closed' ? 4 : 200;
  const flag = model === 'closed' ? ['-c', String(start)] : ['-R', String(start), '--arrivals', 'poisson'];
  const slo = `p99<=${threshold}ms`;
  const finish = watchTarget(target.url);
  const t0 = performance.now();
  const r = await cli(['sweep', '--target', `${target.url}/work`, ...flag, ...STEP, '--slo', slo, '--search', '--service', 'capacity-bench', '--release', model, '--api', api.url, '--engine', ENGINE, '--json', '--spool-dir', mkdtempSync(join(tmpdir(), 'kb-spool-'))]);
  const wallS = (performance.now() - t0) / 1000;
  const stretches = await finish();
  if (r.code !== 0) throw new Error(`kneeboard exited ${r.code}: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { run_id: string; search: SearchReport };
  const search = out.search;
  const detail = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${out.run_id}`)).json());
  const breakAt = search.observations.findIndex((o) => o.judgement === 'breaks');
  const firstBreak = breakAt < 0 ? null : search.observations[breakAt]!.level;
  const found = search.answer.capacity?.level ?? null;
  // Levels at or above the break run before it (a skipped or unclear one, retried lower) are not "past" it.
  const before = firstBreak === null ? 0 : search.observations.slice(0, breakAt).filter((o) => o.level >= firstBreak).length;
  const past = (levels: number[]) => (firstBreak === null ? 0 : levels.filter((l) => l >= firstBreak).length);
  // The target's view: a stretch past the break is one whose load reached the break's — in flight (closed) or served per second (open, within 5%).
  const targetPast =
    firstBreak === null
      ? 0
      : stretches.filter((s) => (model === 'closed' ? s.maxInFlight >= firstBreak : (s.served * 1000) / s.ms >= 0.95 * Math.min(firstBreak, (W * 1000) / S))).length;
  const capacity = (await (await fetch(`${api.url}/api/v1/runs/${out.run_id}/analysis?slo=${encodeURIComponent(slo)}`)).json()) as { capacity: { skipped_levels: Array<{ level: number; reason: string }> } };
  return {
    model,
    slo,
    analytic: Number(analytic.toFixed(2)),
    analytic_exact: Number(exact.toFixed(2)),
    error_vs_exact: found === null ? null : Number(((found - exact) / exact).toFixed(4)),
    skipped_reasons: [...new Set(capacity.capacity.skipped_levels.map((l) => l.reason))],
    found,
    found_qps: search.answer.capacity?.qps ?? null,
    error: found === null ? null : Number(((found - analytic) / analytic).toFixed(4)),
    bracket: { holds: search.answer.bracket.holds?.level ?? null, breaks: search.answer.bracket.breaks?.level ?? null },
    levels_run: search.observations.map((o) => `${o.level}:${o.judgement}@${Math.round(o.qps)}`),
    levels_count: search.observations.length,
    doubling_grid: doublingGrid(start, analytic),
    past_break: {
      search: past(search.observations.slice(Math.max(0, breakAt)).map((o) => o.level)),
      // The run keeps one window a level (a re-run replaces it): a level run before the break and again after counts once.
      run_steps: past(detail.curve.map((p) => p.level)) - new Set(search.observations.slice(0, Math.max(0, breakAt)).filter((o) => firstBreak !== null && o.level >= firstBreak).map((o) => o.level)).size,
      target_stretches: targetPast - before,
    },
    target_stretches: stretches.map((s) => ({ served: s.served, ms: Math.round(s.ms), max_in_flight: s.maxInFlight })),
    wall_s: Number(wallS.toFixed(1)),
  };
}

try {
  // CS_MODELS=open runs one model alone (each takes about a minute on a loaded box).
  const models = (process.env.CS_MODELS ?? 'closed,open').split(',');
  const rows = [];
  if (models.includes('closed')) rows.push(await one('closed', Number(process.env.CS_K_CLOSED ?? 2.6)));
  if (models.includes('open')) rows.push(await one('open', Number(process.env.CS_K_OPEN ?? 2)));
  const loadEnd = loadavg();
  console.log(`demo target W=${W} × S=${S} ms, engine ${ENGINE}, ${STEP.join(' ')}; load average ${loadStart.map((l) => l.toFixed(1)).join(' ')} → ${loadEnd.map((l) => l.toFixed(1)).join(' ')} (2 cores)`);
  console.log('model  | SLO          | k·W or M/D/W | ⌈c/W⌉·S exact | found (QPS)      | error  | bracket   | levels run (grid) | past break: search / steps / target');
  // An open-loop level is a rate the bisection chose (353.27205…): one decimal is what a reader needs.
  const lv = (x: number | null) => (x === null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(1));
  for (const r of rows) {
    console.log(
      `${r.model.padEnd(6)} | ${r.slo.padEnd(12)} | ${lv(r.analytic).padStart(12)} | ${lv(r.analytic_exact).padStart(13)} | ${lv(r.found).padStart(5)} (${String(Math.round(r.found_qps ?? 0)).padStart(5)}) | ${r.error_vs_exact === null ? '  —  ' : `${(r.error_vs_exact * 100).toFixed(1)}%`.padStart(6)} | ${lv(r.bracket.holds)}…${lv(r.bracket.breaks)} | ${r.levels_count} (${r.doubling_grid}) | ${r.past_break.search} / ${r.past_break.run_steps} / ${r.past_break.target_stretches}`,
    );
    console.log(`         levels: ${r.levels_run.map((l) => l.replace(/^(\d+\.\d)\d+/, '$1')).join(' ')}; target saw ${r.target_stretches.length} stretches`);
    if (r.skipped_reasons.length > 0) console.log(`         skipped: ${r.skipped_reasons.join(' | ')}`);
  }
  writeFileSync(new URL('./results/capacity-search.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), engine: ENGINE, workers: W, service_ms: S, step: STEP.join(' '), load_average: { start: loadStart, end: loadEnd }, rows }, null, 2)}\n`);
} finally {
  await target.stop();
  await api.stop();
}
