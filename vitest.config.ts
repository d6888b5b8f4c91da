import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: keep files from starving each other (kill tests, PostgreSQL restarts).
    maxWorkers: 2,
    minWorkers: 1,
  },
});
