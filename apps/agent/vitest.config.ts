import { defineConfig } from 'vitest/config';

// Integration tests start real servers and spawn the CLI; forks keep child processes and signals
// apart, and one file at a time keeps their timings from competing for the same cores.
export default defineConfig({
  test: { pool: 'forks', fileParallelism: false, testTimeout: 30_000, hookTimeout: 30_000 },
});
