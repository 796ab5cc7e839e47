import { defineConfig } from 'vitest/config';

// Integration tests start real servers on loopback; one file at a time keeps their timings apart.
export default defineConfig({
  test: { pool: 'forks', fileParallelism: false, testTimeout: 30_000, hookTimeout: 30_000 },
});
