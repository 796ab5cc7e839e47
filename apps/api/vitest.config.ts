import { defineConfig } from 'vitest/config';

// chDB binds one data directory per process: each test file runs in its own forked process.
export default defineConfig({
  test: { pool: 'forks', isolate: true, testTimeout: 60_000, hookTimeout: 60_000 },
});
