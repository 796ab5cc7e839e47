import { defineConfig } from 'vitest/config';

// The integration tests time real servers on loopback: one file at a time, so files do not
// compete for the two cores and skew each other's timings.
export default defineConfig({
  test: { pool: 'forks', fileParallelism: false, testTimeout: 20_000 },
});
