import { defineConfig } from 'vitest/config';

// Integration tests start real servers and spawn the CLI; forks keep child processes and signals
// apart, and one file at a time keeps their timings from competing for the same cores. The native
// engine is built once before any test (both engines run every behavioural test).
export default defineConfig({
  test: { globalSetup: ['./test/support/build-engine.ts'], pool: 'forks', fileParallelism: false, testTimeout: 30_000, hookTimeout: 30_000 },
});
