/**
 * Calibration of the release comparison at 2, 3 and 5 runs a side: how often two groups of the
 * same release get any change called (A/A: any level's QPS, p50 or p99, or the overall verdict),
 * and how often a 10% slower head (QPS ÷ 1.1, latency × 1.1) gets a regression verdict, with 2%
 * run-to-run noise landing per step (interleaved repeats) or per whole run. Deterministic: the same
 * seed prints the same table.
 * Run from the repository root: npx tsx bench/compare-calibration.bench.ts [trials=200] [seed=1]
 * Prints a table and writes bench/results/compare-calibration.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calibrationRow, type CalibrationRow } from '@kneeboard/analysis/testing';

const trials = Number(process.argv[2] ?? 200);
const seed = Number(process.argv[3] ?? 1);
const rows: CalibrationRow[] = [];
const started = Date.now();
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
console.log(`| runs a side | noise lands per | A/A: any change called | 10% slower head: regression called | trials each |`);
console.log(`|---:|---|---:|---:|---:|`);
for (const model of ['step', 'run'] as const) {
  for (const n of [2, 3, 5]) {
    const row = calibrationRow(n, model, trials, seed);
    rows.push(row);
    console.log(`| ${n} | ${model === 'step' ? 'step (interleaved repeats)' : 'whole run'} | ${pct(row.falseCalls)} | ${pct(row.detected)} | ${row.trials} |`);
  }
}
const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'compare-calibration.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ trials, seed, noise: 0.02, change: '10% (QPS ÷ 1.1, latency × 1.1)', levels: [1, 2, 4, 8, 16], rows, seconds: (Date.now() - started) / 1000, cpu: cpus()[0]?.model }, null, 2)}\n`);
console.log(`\n${trials} trials per cell, seed ${seed}, ${((Date.now() - started) / 1000).toFixed(0)} s; written to ${out}`);
