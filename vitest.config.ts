import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The live suite spends real quota: only `npm run test:live` runs it.
    exclude: ['test/live/**', '**/node_modules/**'],
    // Vitest's default on a 2-core CI machine is one worker, which ran the suite serially
    // (653 s). Most files wait on child processes, sockets and DuckDB I/O, so two workers
    // halve the wall time (309 s) without starving each other.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
