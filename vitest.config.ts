import { availableParallelism } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.js';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * The tests import the product and the emulator as built: a relative import that lands in src/ or
 * emulator/ is answered from dist/, which Node loads as it is (no transform of ~300 modules a run,
 * and the code tested is the code shipped). The global setup builds dist/ first.
 */
function testTheBuild(): Plugin {
  return {
    name: 'gexwh-test-the-build',
    enforce: 'pre',
    resolveId(source, importer) {
      if (importer === undefined || !source.startsWith('.')) return null;
      const target = resolve(dirname(importer), source);
      for (const folder of ['src', 'emulator']) {
        const from = join(ROOT, folder) + sep;
        if (target.startsWith(from)) return join(ROOT, 'dist', folder, target.slice(from.length));
      }
      return null;
    },
  };
}

export default defineConfig({
  plugins: [testTheBuild()],
  test: {
    include: ['test/**/*.test.ts'],
    // The live suite spends real quota: only `npm run test:live` runs it.
    exclude: ['test/live/**', '**/node_modules/**'],
    // Vitest's default on a 2-core CI machine is one worker, which runs the suite serially. Each
    // worker runs DuckDB on one thread (GEXWH_THREADS=1, test/global-setup.ts) and many files wait on
    // child processes, sockets and held answers, so one and a half workers a core keep the cores
    // busy. On 2 cores, three pairs of runs took 271/303, 319/312 and 326/338 s with 3/2 workers
    // (4 workers: 322 s). Vitest caps a percentage at the core count, hence the number.
    maxWorkers: Math.ceil(availableParallelism() * 1.5),
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
    server: { deps: { external: [/\/dist\/(?:src|emulator)\//] } },
  },
});
