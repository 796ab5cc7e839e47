// The native engine's checks, run by this package's `lint` and `test` scripts: cargo is a
// requirement of the agent's tests (they run every behavioural check on both engines), so a
// missing cargo is an error that says what to install, never a skipped test.
//   node scripts/engine.mjs build|lint|test
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../engine', import.meta.url));
const home = join(homedir(), '.cargo/bin/cargo');
const cargo = existsSync(home) ? home : 'cargo';
const steps = {
  build: [['build', '--release', '--quiet']],
  lint: [['fmt', '--check'], ['clippy', '--quiet', '--all-targets', '--', '-D', 'warnings']],
  test: [['test', '--quiet']],
}[process.argv[2] ?? 'build'];
if (!steps) throw new Error(`usage: node scripts/engine.mjs build|lint|test`);
for (const args of steps) {
  const r = spawnSync(cargo, args, { cwd: dir, stdio: 'inherit' });
  if (r.error) {
    console.error(`cargo ${args[0]}: ${r.error.message} — the agent's native engine needs Rust (rustup.rs) to build and test`);
    process.exit(1);
  }
  if (r.status !== 0) process.exit(r.status ?? 1);
}
