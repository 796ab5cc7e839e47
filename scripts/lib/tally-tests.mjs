// Adds up vitest's "Tests  N passed | M failed" lines and pytest's "M failed, N passed in 20.1s" lines
// (the Locust plugin's tests) from a test log and prints one closing line,
// "N passed, M failed", so CI can read the whole suite's outcome at a glance. The names of the
// failed tests follow it, one per line, because CI keeps only the tail of a long log.
import { readFileSync } from 'node:fs';

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const log = readFileSync(process.argv[2] ?? 0, 'utf8').replace(ANSI_COLOUR, '');
let passed = 0;
let failed = 0;
let skipped = 0;
const failedNames = new Set();
for (const line of log.split('\n')) {
  // vitest: " FAIL  test/x.test.ts > suite > name"; pytest: "FAILED tests/test_x.py::name - reason".
  const failure = /\bFAIL(?:ED)?\s+(\S+(?: > |::).*)$/.exec(line)?.[1];
  if (failure) failedNames.add(`${/^(@[\w/-]+):/.exec(line)?.[1] ?? ''} ${failure.trim()}`.trim());
  const counts = /Tests\s+(.*)\(\d+\)\s*$/.exec(line)?.[1] ?? /:\s+=*\s*(.*\d+ (?:passed|failed).*) in [\d.]+s\b/.exec(line)?.[1];
  if (!counts) continue;
  passed += Number(/(\d+) passed/.exec(counts)?.[1] ?? 0);
  failed += Number(/(\d+) failed/.exec(counts)?.[1] ?? 0);
  skipped += Number(/(\d+) skipped/.exec(counts)?.[1] ?? 0);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
for (const name of failedNames) console.log(`  failed: ${name}`);
