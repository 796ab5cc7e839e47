import { defineConfig } from 'vitest/config';

/** Browser tests: real Chromium against `next start` and the fixture API. One file at a time (2-core machines). */
export default defineConfig({
  test: {
    include: ['e2e/**/*.spec.ts'],
    environment: 'node',
    globalSetup: ['e2e/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 45_000,
    hookTimeout: 90_000,
    teardownTimeout: 20_000,
  },
});
