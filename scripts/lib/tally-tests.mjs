// Adds up vitest's "Tests  N passed | M failed" lines from a test log and prints one closing line,
// "N passed, M failed", so CI can read the whole suite's outcome at a glance.
import { readFileSync } from 'node:fs';

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const log = readFileSync(process.argv[2] ?? 0, 'utf8').replace(ANSI_COLOUR, '');
let passed = 0;
let failed = 0;
let skipped = 0;
for (const line of log.split('\n')) {
  const m = /Tests\s+(.*)\(\d+\)\s*$/.exec(line);
  if (!m) continue;
  passed += Number(/(\d+) passed/.exec(m[1])?.[1] ?? 0);
  failed += Number(/(\d+) failed/.exec(m[1])?.[1] ?? 0);
  skipped += Number(/(\d+) skipped/.exec(m[1])?.[1] ?? 0);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
