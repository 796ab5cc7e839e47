/**
 * Calibration of the release comparison at the group sizes teams run (2–5 repeats a side): A/A
 * trials (false calls) and a known change (detection), on synthetic runs of a 4-worker, 20 ms
 * server whose speed moves from run to run. Shared by the calibration bench (the README's table)
 * and the test that holds the targets; every draw comes from a seed, so a table is reproducible.
 */
import type { CurvePoint } from '@kneeboard/contracts';
import { compareGroups, type LevelSamples, type RunSamples } from '../src/compare/index.ts';
import { prng } from './prng.ts';

export const CALIBRATION_LEVELS = [1, 2, 4, 8, 16];

/**
 * Where the run-to-run noise lands: `step` — every (run, level) step gets its own factor, as with
 * interleaved repeats (`kneeboard sweep --repeat`, levels of every repeat in turn); `run` — one
 * factor moves a whole run, every level alike (repeats run one after another on a box whose load
 * changes between them).
 */
export type NoiseModel = 'step' | 'run';

export interface SimOptions {
  /** Relative standard deviation of the run-to-run factor (lognormal). */
  noise: number;
  model: NoiseModel;
  /** Head ÷ base throughput (latency moves by the inverse). */
  change?: number;
  seconds?: number;
}

function gaussian(u: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

function quantileOf(sorted: number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return (sorted[lo] as number) + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)] as number) - (sorted[lo] as number));
}

/** One run: per level, per-second success counts (3% noise) and lognormal latencies (σ = 0.25), scaled by the level's factor. */
export function simulatedRun(u: () => number, index: number, factorAt: (level: number) => number, seconds: number): RunSamples {
  const samples: LevelSamples[] = [];
  const curve: CurvePoint[] = [];
  for (const level of CALIBRATION_LEVELS) {
    const f = factorAt(level);
    const trueQps = ((Math.min(level, 4) * 1000) / 20) * f;
    const median = Math.max(20, (level * 20) / 4) / f;
    const perSecond = Array.from({ length: seconds }, () => Math.max(0, Math.round(trueQps * (1 + 0.03 * gaussian(u)))));
    const n = Math.min(2000, perSecond.reduce((a, b) => a + b, 0));
    const latencies = Array.from({ length: n }, () => median * Math.exp(0.25 * gaussian(u)));
    const sorted = [...latencies].sort((a, b) => a - b);
    samples.push({ level, per_second_ok: perSecond, latencies });
    curve.push({
      level,
      requests: n,
      errors: 0,
      qps: perSecond.reduce((a, b) => a + b, 0) / seconds,
      window_s: seconds,
      p50_ms: quantileOf(sorted, 0.5),
      p90_ms: quantileOf(sorted, 0.9),
      p99_ms: quantileOf(sorted, 0.99),
      p999_ms: quantileOf(sorted, 0.999),
      compute_p50_ms: null,
      compute_p99_ms: null,
      queue_p50_ms: null,
      queue_p99_ms: null,
      other_p50_ms: null,
      in_progress: false,
    });
  }
  return { label: 'sim', run_id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, curve, knee: 4, knee_bracket: { low: 2, high: 4 }, samples };
}

/** `count` repeats of one release, `scale` × its speed, under the noise model. */
export function simulatedGroup(u: () => number, count: number, scale: number, opts: SimOptions, firstIndex: number): RunSamples[] {
  return Array.from({ length: count }, (_, i) => {
    const runFactor = Math.exp(opts.noise * gaussian(u));
    const factorAt = () => scale * (opts.model === 'run' ? runFactor : Math.exp(opts.noise * gaussian(u)));
    return simulatedRun(u, firstIndex + i, factorAt, opts.seconds ?? 10);
  });
}

export interface TrialOutcome {
  /** Any verdict anywhere (a level's QPS, p50 or p99, or the overall) called a change. */
  anyCall: boolean;
  /** The overall verdict is a regression. */
  overallRegression: boolean;
}

/** One comparison of `n` base runs with `n` head runs; `change` < 1 is a slower head. */
export function calibrationTrial(seed: number, n: number, opts: SimOptions): TrialOutcome {
  const u = prng(seed);
  const base = simulatedGroup(u, n, 1, opts, 0);
  const head = simulatedGroup(u, n, opts.change ?? 1, opts, n);
  const { levels, overall } = compareGroups({ label: 'base', runs: base }, { label: 'head', runs: head }, { minEffect: 0.05, seed, parameter: 'concurrency', resamples: 400 });
  const called = (v: string) => v === 'regression' || v === 'improvement';
  const anyCall = called(overall.verdict) || levels.some((l) => [l.qps, l.p50_ms, l.p99_ms].some((d) => called(d.verdict)));
  return { anyCall, overallRegression: overall.verdict === 'regression' };
}

export interface CalibrationRow {
  n: number;
  model: NoiseModel;
  trials: number;
  /** Share of A/A trials with any call. */
  falseCalls: number;
  /** Share of trials with a 10% slower head whose overall verdict is a regression. */
  detected: number;
}

/** A/A and a 10% slower head (QPS ÷ 1.1, latency × 1.1) at 2% run-to-run noise, `trials` each. */
export function calibrationRow(n: number, model: NoiseModel, trials: number, seed = 1): CalibrationRow {
  let falseCalls = 0;
  let detected = 0;
  for (let t = 0; t < trials; t++) {
    if (calibrationTrial(seed * 1_000_003 + t, n, { noise: 0.02, model }).anyCall) falseCalls++;
    if (calibrationTrial(seed * 2_000_003 + t, n, { noise: 0.02, model, change: 1 / 1.1 }).overallRegression) detected++;
  }
  return { n, model, trials, falseCalls: falseCalls / trials, detected: detected / trials };
}
