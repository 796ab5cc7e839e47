import { defineConfig } from 'vitest/config';

/** Unit tests (pure: the prepare functions, formatting, env parsing) and the fixture API's integration test on loopback. */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'e2e/**/*.test.ts'],
    environment: 'node',
  },
});
