import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The live suite spends real quota: only `npm run test:live` runs it.
    exclude: ['test/live/**', '**/node_modules/**'],
    // Vitest's default on a 2-core CI machine is one worker, which runs the suite serially. Most
    // files wait on child processes, sockets and DuckDB I/O, so two workers share the two cores
    // without starving each other (the measured suite time: README, docs/development.md).
    maxWorkers: 2,
    // A test file spends ~1 s (4-6 s on a loaded machine) importing the client, DuckDB's native
    // binding, undici and the emulator before its first test; a worker that keeps them between files
    // pays it once. Safe here: no test mocks a module (the one vi.resetModules is its own file's), and
    // every file closes its emulators, warehouses and temp folders and restores the env it changes.
    isolate: false,
    // Builds dist/ (incrementally) before any test: the CLI tests run the built binary.
    globalSetup: ['test/global-setup.ts'],
    sequence: { sequencer: LongestFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // dt-sql-parser's ESM build imports folders and files without extensions, which Node's ESM loader
    // refuses; inlined, Vite resolves them (test/export/ddl.test.ts).
    server: { deps: { inline: ['dt-sql-parser'] } },
  },
});
