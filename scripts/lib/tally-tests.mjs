// Adds up vitest's "Tests  N passed | M failed" lines and pytest's "M failed, N passed in 20.1s" lines
// (the Locust plugin's tests) from a test log and prints one closing line,
// "N passed, M failed", so CI can read the whole suite's outcome at a glance.
import { readFileSync } from 'node:fs';

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const log = readFileSync(process.argv[2] ?? 0, 'utf8').replace(ANSI_COLOUR, '');
let passed = 0;
let failed = 0;
let skipped = 0;
for (const line of log.split('\n')) {
  const counts = /Tests\s+(.*)\(\d+\)\s*$/.exec(line)?.[1] ?? /:\s+=*\s*(.*\d+ (?:passed|failed).*) in [\d.]+s\b/.exec(line)?.[1];
  if (!counts) continue;
  passed += Number(/(\d+) passed/.exec(counts)?.[1] ?? 0);
  failed += Number(/(\d+) failed/.exec(counts)?.[1] ?? 0);
  skipped += Number(/(\d+) skipped/.exec(counts)?.[1] ?? 0);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
