/**
 * Calibrates the analysis' trust in a USL fit (packages/analysis/src/usl-trust.ts) and its
 * hard-limit verdict (hard-limit.ts) on seeded synthetic curves: how often each check fires on
 * genuine USL curves (false alarms) and on fixed pools (detections).
 * Run from the repository root: npx tsx bench/usl-trust.calibrate.ts
 * Prints a table and writes bench/results/usl-trust.json. Deterministic: the same numbers every run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fitUsl, hardLimit, uslThroughput, uslTrust, uslPeakLevel, type UslParams } from '@kneeboard/analysis';
import { prng } from '@kneeboard/analysis/testing';

const GENUINE = 3000;
const POOLS = 1000;
const rnd = prng(42);

/** Geometric levels from `start` to twice the true peak (or 2^(count−1)·start), as the analysis tests sweep. */
function sweepLevels(p: UslParams, start: number, count: number): number[] {
  const peak = uslPeakLevel(p);
  const top = peak !== null ? Math.min(Math.max(2 * peak, start * 8), 2000) : Math.min(start * 2 ** (count - 1), 2000);
  const ratio = (top / start) ** (1 / (count - 1));
  return Array.from({ length: count }, (_, i) => Math.round(start * ratio ** i * 100) / 100);
}

const has = (reasons: string[], prefix: string) => reasons.some((r) => r.startsWith(prefix));

const genuine = { curves: 0, untrusted: 0, poorR2: 0, miss: 0, tail: 0, hardLimitVerdict: 0 };
for (let t = 0; t < GENUINE; t++) {
  const p = { lambda: 5 + rnd() * 5000, sigma: 0.005 + rnd() * 0.145, kappa: rnd() < 0.3 ? 0 : 1e-5 + rnd() * 2e-3 };
  const noise = 0.01 + rnd() * 0.04;
  const count = 5 + Math.floor(rnd() * 8);
  const start = [1, 2, 4][Math.floor(rnd() * 3)] ?? 1;
  const points = sweepLevels(p, start, count).map((level) => ({ level, qps: uslThroughput(level, p) * (1 + noise * (2 * rnd() - 1)) }));
  const { trusted, reasons } = uslTrust(points, fitUsl(points), 'concurrency');
  genuine.curves++;
  if (!trusted) genuine.untrusted++;
  if (has(reasons, 'The USL fits poorly')) genuine.poorR2++;
  if (has(reasons, 'The USL fit is off')) genuine.miss++;
  if (reasons.some((r) => r.includes("the fall is the model's"))) genuine.tail++;
  if (hardLimit(points)) genuine.hardLimitVerdict++;
}

const pools = { curves: 0, untrusted: 0, poorR2: 0, miss: 0, tail: 0, hardLimitVerdict: 0, hardLimitVerdictW4up: 0, curvesW4up: 0 };
const grids = [
  [1, 2, 4, 8, 16, 32, 64, 128, 256],
  [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128],
];
for (let t = 0; t < POOLS; t++) {
  const workers = [2, 4, 8, 16, 32][Math.floor(rnd() * 5)] ?? 8;
  const serviceMs = 5 + rnd() * 50;
  const noise = rnd() * 0.03;
  const grid = grids[Math.floor(rnd() * 2)] ?? [];
  const points = grid
    .filter((l) => l <= 8 * workers)
    .map((level) => ({ level, qps: ((Math.min(level, workers) * 1000) / serviceMs) * (1 + noise * (2 * rnd() - 1)) }));
  if (points.length < 4) continue;
  const { trusted, reasons } = uslTrust(points, fitUsl(points), 'concurrency');
  pools.curves++;
  if (!trusted) pools.untrusted++;
  if (has(reasons, 'The USL fits poorly')) pools.poorR2++;
  if (has(reasons, 'The USL fit is off')) pools.miss++;
  if (reasons.some((r) => r.includes("the fall is the model's"))) pools.tail++;
  const limit = hardLimit(points) !== null;
  if (limit) pools.hardLimitVerdict++;
  if (workers >= 4) {
    pools.curvesW4up++;
    if (limit) pools.hardLimitVerdictW4up++;
  }
}

console.log('USL trust calibration (seeded; uniform multiplicative noise)');
console.log('| curves | n | R² < 0.9 | misses a level by > 9% of the top | falls over a flat tail | hard-limit verdict |');
console.log('|---|---|---|---|---|---|');
console.log(`| genuine USL (1–5% noise, 5–12 levels) | ${genuine.curves} | ${genuine.poorR2} | ${genuine.miss} | ${genuine.tail} | ${genuine.hardLimitVerdict} |`);
console.log(
  `| fixed pool min(N, W)·1000/S (0–3% noise) | ${pools.curves} | ${pools.poorR2} | ${pools.miss} | ${pools.tail} | ${pools.hardLimitVerdict} (${pools.hardLimitVerdictW4up} of ${pools.curvesW4up} with W ≥ 4) |`,
);
console.log(`fits not trusted: genuine USL ${genuine.untrusted} of ${genuine.curves}, fixed pools ${pools.untrusted} of ${pools.curves}`);

const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'usl-trust.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ genuine, pools }, null, 2)}\n`);
