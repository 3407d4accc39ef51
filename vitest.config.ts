import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The addon is loaded once per worker process.
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
