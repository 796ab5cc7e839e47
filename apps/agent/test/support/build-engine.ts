import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * vitest globalSetup: the integration tests run on both engines, so the native one is built first
 * (`cargo build --release`, a no-op when start.sh or test.sh already built it).
 */
export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/engine.mjs', import.meta.url)), 'build'], { stdio: 'inherit' });
}
