import { defineConfig } from 'vitest/config';

// The live suite alone (npm run test:live): the real API, so generous timeouts and one file at a time.
export default defineConfig({
  test: {
    include: ['test/live/**/*.test.ts'],
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
