// Adds up vitest's "Tests  N passed | M failed" lines and pytest's "M failed, N passed in 20.1s" lines
// (the Locust plugin's tests) from a test log and prints one closing line,
// "N passed, M failed", so CI can read the whole suite's outcome at a glance. The names of the
// failed tests follow it, one per line, each with the first lines of its reason (the assertion and
// where it failed), because CI keeps only the tail of a long log: a flake seen once on a busy CI box
// must be diagnosable from that tail alone.
import { readFileSync } from 'node:fs';

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
/** turbo's "@kneeboard/api:test: " prefix. */
const TASK_PREFIX = /^(@[\w/-]+):[\w:-]+:\s?/;
const REASON_LINES = 8;
const REASON_CHARS = 300;

const lines = readFileSync(process.argv[2] ?? 0, 'utf8').replace(ANSI_COLOUR, '').split('\n');
let passed = 0;
let failed = 0;
let skipped = 0;
/** Failed test → its reason (vitest prints the name once in its "Failed Tests" section, then why). */
const failures = new Map();
lines.forEach((line, i) => {
  // vitest: " FAIL  test/x.test.ts > suite > name"; pytest: "FAILED tests/test_x.py::name - reason".
  const failure = /\bFAIL(?:ED)?\s+(\S+(?: > |::).*)$/.exec(line)?.[1];
  if (failure) {
    const task = TASK_PREFIX.exec(line)?.[1];
    const name = `${task ?? ''} ${failure.trim()}`.trim();
    const reason = reasonAfter(i, task);
    if (!failures.has(name) || (reason.length > 0 && failures.get(name).length === 0)) failures.set(name, reason);
  }
  const counts = /Tests\s+(.*)\(\d+\)\s*$/.exec(line)?.[1] ?? /:\s+=*\s*(.*\d+ (?:passed|failed).*) in [\d.]+s\b/.exec(line)?.[1];
  if (!counts) return;
  passed += Number(/(\d+) passed/.exec(counts)?.[1] ?? 0);
  failed += Number(/(\d+) failed/.exec(counts)?.[1] ?? 0);
  skipped += Number(/(\d+) skipped/.exec(counts)?.[1] ?? 0);
});
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
for (const [name, reason] of failures) {
  console.log(`  failed: ${name}`);
  for (const r of reason) console.log(`      ${r}`);
}

/** The lines of the same task after a FAIL line, up to vitest's source pointer ("❯ file:line:col") or the next failure. */
function reasonAfter(index, task) {
  const reason = [];
  for (let j = index + 1; j < lines.length && reason.length < REASON_LINES; j++) {
    const prefix = TASK_PREFIX.exec(lines[j]);
    // turbo interleaves tasks' output: keep only this task's lines.
    if ((prefix?.[1] ?? undefined) !== task) continue;
    const text = lines[j].slice(prefix?.[0].length ?? 0).trim();
    if (/\bFAIL(?:ED)?\s/.test(text) || text.startsWith('⎯')) break;
    if (text === '') continue;
    reason.push(text.slice(0, REASON_CHARS));
    if (text.startsWith('❯ ')) break;
  }
  return reason;
}
