/**
 * Calibration of change-point detection (E-divisive means, the defaults of
 * packages/analysis/src/history/e-divisive.ts) on simulated histories of 20 releases, one value
 * per release with 3% lognormal noise: A/A (no change) and a +10% step. Deterministic: the same
 * seed prints the same table.
 * Run from the repository root: npx tsx bench/change-points.calibrate.ts [trials=1000] [seed=1]
 * Prints a table and writes bench/results/change-points.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { E_DIVISIVE_DEFAULTS } from '@kneeboard/analysis';
import { calibrateChangePoints, type HistoryScenario } from '@kneeboard/analysis/testing';

const trials = Number(process.argv[2] ?? 1000);
const seed = Number(process.argv[3] ?? 1);
const started = Date.now();
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

const base = { releases: 20, noise: 0.03 };
const scenarios: { name: string; scenario: HistoryScenario }[] = [
  { name: 'A/A, 20 releases, 3% noise', scenario: { ...base, step: 1, stepFrom: 0, stepTo: 0 } },
  { name: '+10% step at release 5–15 (≥ 5 releases each side)', scenario: { ...base, step: 1.1, stepFrom: 5, stepTo: 15 } },
  { name: '+10% step at release 3–17 (the minimum segment)', scenario: { ...base, step: 1.1, stepFrom: 3, stepTo: 17 } },
  { name: '−10% step at release 5–15', scenario: { ...base, step: 1 / 1.1, stepFrom: 5, stepTo: 15 } },
  { name: '+5% step at release 5–15', scenario: { ...base, step: 1.05, stepFrom: 5, stepTo: 15 } },
];

const rows = scenarios.map(({ name, scenario }, i) => ({ name, scenario, ...calibrateChangePoints(scenario, trials, seed + i) }));
console.log(`E-divisive means: sigLevel ${E_DIVISIVE_DEFAULTS.sigLevel}, ${E_DIVISIVE_DEFAULTS.permutations} permutations, min segment ${E_DIVISIVE_DEFAULTS.minSize}, alpha ${E_DIVISIVE_DEFAULTS.alpha}; ${trials} trials each, seed ${seed}\n`);
console.log('| history | no change point | at the step (±0) | within ±1 | a change point > 1 release off (A/A: any) |');
console.log('|---|---|---|---|---|');
for (const r of rows) {
  const step = r.scenario.step !== 1;
  console.log(`| ${r.name} | ${pct(r.none / r.trials)} | ${step ? pct(r.exact / r.trials) : '—'} | ${step ? pct(r.within1 / r.trials) : '—'} | ${pct(r.spurious / r.trials)} |`);
}
const seconds = (Date.now() - started) / 1000;
console.log(`\n${seconds.toFixed(1)} s on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`);
const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'change-points.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ trials, seed, settings: E_DIVISIVE_DEFAULTS, seconds, rows }, null, 2)}\n`);
