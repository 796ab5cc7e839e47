/**
 * How long analyzeCurve takes on the curves the dashboard re-analyses on every live update.
 * Run from the repository root: npx tsx bench/analysis.bench.ts
 * Prints a table and writes bench/results/analysis.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, platform, arch } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeCurve } from '@kneeboard/analysis';
import { prng } from '@kneeboard/analysis/testing';
import type { AnalysisPoint, AnalyzeCurveInput } from '@kneeboard/contracts';

const WARMUP = 300;
const ITERATIONS = 3000;

function pointAt(level: number, qps: number, p50: number, p99: number): AnalysisPoint {
  return {
    level,
    requests: Math.round(qps * 30),
    errors: 0,
    qps,
    window_s: 30,
    p50_ms: p50,
    p90_ms: p50 * 1.8,
    p99_ms: p99,
    p999_ms: p99 * 1.5,
    compute_p50_ms: p50 * 0.8,
    compute_p99_ms: p99 * 0.8,
    queue_p50_ms: p50 * 0.1,
    queue_p99_ms: p99 * 0.1,
    other_p50_ms: p50 * 0.1,
    in_progress: false,
  };
}

/** A closed-loop sweep over `levels` following the USL (σ = 0.03, κ = 0.001, N* ≈ 31) with 2% noise. */
function closedCurve(levels: readonly number[]): AnalyzeCurveInput {
  const rnd = prng(42);
  const curve = levels.map((n) => {
    const qps = ((200 * n) / (1 + 0.03 * (n - 1) + 0.001 * n * (n - 1))) * (1 + 0.02 * (2 * rnd() - 1));
    const p50 = (1000 * n) / qps; // Little's law with no think time
    return pointAt(n, qps, p50, p50 * 2.5);
  });
  return { curve, load_model: 'closed', parameter: 'concurrency' };
}

/** An open-loop sweep of offered rates against a server that tops out at 3,000 req/s. */
function openCurve(count: number): AnalyzeCurveInput {
  const curve = Array.from({ length: count }, (_, i) => {
    const rate = 100 * (i + 1);
    const rho = Math.min(rate / 3000, 0.98);
    return pointAt(rate, Math.min(rate, 3000), 5, (4.6 * 5) / (1 - rho));
  });
  return { curve, load_model: 'open', parameter: 'rate' };
}

function time(input: AnalyzeCurveInput) {
  for (let i = 0; i < WARMUP; i++) analyzeCurve(input);
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = performance.now();
    analyzeCurve(input);
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const q = (f: number) => samples[Math.min(samples.length - 1, Math.floor(f * samples.length))] ?? NaN;
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { median_ms: q(0.5), p99_ms: q(0.99), mean_ms: mean, max_ms: samples[samples.length - 1] ?? NaN };
}

const oneToFifty = Array.from({ length: 50 }, (_, i) => i + 1);
const cases: { name: string; levels: number; input: AnalyzeCurveInput }[] = [
  { name: 'closed, 50 levels (1…50, peak at 31)', levels: 50, input: closedCurve(oneToFifty) },
  { name: 'closed, 10 levels (1…512 doubling)', levels: 10, input: closedCurve([1, 2, 4, 8, 16, 32, 64, 128, 256, 512]) },
  { name: 'open, 50 levels (offered rate)', levels: 50, input: openCurve(50) },
];

const results = cases.map((c) => ({ case: c.name, levels: c.levels, iterations: ITERATIONS, ...time(c.input) }));

const fmt = (v: number) => v.toFixed(3).padStart(9);
console.log(`analyzeCurve — ${ITERATIONS} timed iterations after ${WARMUP} warm-up, Node ${process.version}`);
console.log(`${'case'.padEnd(38)}${'median ms'.padStart(10)}${'p99 ms'.padStart(10)}${'mean ms'.padStart(10)}`);
for (const r of results) console.log(`${r.case.padEnd(38)} ${fmt(r.median_ms)} ${fmt(r.p99_ms)} ${fmt(r.mean_ms)}`);

const machine = { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, platform: platform(), arch: arch(), node: process.version };
const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'analysis.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ benchmark: 'analyzeCurve', date: new Date().toISOString(), machine, results }, null, 2)}\n`);
console.log(`wrote ${out}`);
