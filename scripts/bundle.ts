// The CLI as users run it: src/cli/main.ts and what it imports, bundled by rolldown into dist/cli/
// (`npm run build` runs it after tsc). A command's start was mostly module loading: a no-op sync read
// ~500 files (DuckDB's API alone ~180, zod ~95), each resolved, read and compiled on its own. Bundled,
// a command reads a few dozen: each command's `await import()` becomes a chunk of its own, so --help
// still loads no DuckDB, no HTTP client and no charts.
//
// Left in node_modules, read where they lie: native code (DuckDB's bindings, found from DuckDB's API; resvg), packages that read
// files beside their own code (subset-font's WebAssembly, echarts' browser build that the report
// inlines) and the S3 SDK (export to S3 only). The emulator (`gexwh emulate`, `demo`) stays the tsc
// build in dist/emulator: it starts worker threads from its own files and hashes its own sources.
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown, type Plugin } from 'rolldown';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The bundle's folder, beside dist/src: sql/, assets/ and package.json are found above it. */
export const BUNDLE_DIR = join(ROOT, 'dist', 'cli');
/** The binary (package.json's bin): turns source maps on under --verbose, then loads the bundle's entry. */
export const BIN_FILE = 'gexwh.js';

const EXTERNAL = [/^node:/, /^@resvg\/resvg-js/, /^subset-font/, /^echarts/, /^@aws-sdk\//];

/**
 * src/warehouse/duckdb.ts loads DuckDB's API with require (imported from ESM, Node lexes every file the
 * CommonJS package re-exports to find its names); a bundle has no such cost, so there it is a plain
 * import the bundler follows: the same module object, bundled.
 */
const duckdbBundled: Plugin = {
  name: 'duckdb-bundled',
  load(id) {
    if (!/[\\/]src[\\/]warehouse[\\/]duckdb\.ts$/.test(id)) return null;
    return { code: "import * as api from '@duckdb/node-api';\nexport const duckdb = api;\n", moduleType: 'ts' };
  },
};

/**
 * DuckDB's native bindings are the version DuckDB's API depends on, installed beside it: looked up from
 * the API's own folder as the API itself does, not from the bundle's (where a package manager may have
 * put another version, or none).
 */
const BINDINGS = '\0duckdb-bindings';
const duckdbBindingsOfApi: Plugin = {
  name: 'duckdb-bindings-of-api',
  resolveId(source, importer) {
    return source === '@duckdb/node-bindings' && importer !== undefined && /[\\/]@duckdb[\\/]node-api[\\/]/.test(importer) ? BINDINGS : null;
  },
  load(id) {
    if (id !== BINDINGS) return null;
    return {
      code: [
        "import { createRequire } from 'node:module';",
        "const api = createRequire(import.meta.url).resolve('@duckdb/node-api');",
        "export default createRequire(api)('@duckdb/node-bindings');",
      ].join('\n'),
      moduleType: 'js',
    };
  },
};

/** The emulator is imported from dist/emulator, the tsc build, at its place relative to dist/cli. */
const emulatorFromDist: Plugin = {
  name: 'emulator-from-dist',
  resolveId(source) {
    return /[\\/]emulator[\\/]index\.js$/.test(source) ? { id: '../emulator/index.js', external: true } : null;
  },
};

// Source maps cost Node a parse of every loaded chunk's map at load (~0.2 s of CPU for a sync), and
// gexwh prints a stack only under --verbose: with it, stacks name the src/ files and lines.
const BIN = `#!/usr/bin/env node
// gexwh's binary: the bundle's entry, with source maps on under --verbose (the stacks it prints name src/ files).
if (process.argv.includes('--verbose')) process.setSourceMapsEnabled(true);
await import('./main.js');
`;

export async function bundle(): Promise<void> {
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  const build = await rolldown({
    cwd: ROOT,
    input: { main: 'src/cli/main.ts' },
    platform: 'node',
    external: EXTERNAL,
    plugins: [duckdbBundled, duckdbBindingsOfApi, emulatorFromDist],
    logLevel: 'warn',
  });
  try {
    await build.write({
      dir: BUNDLE_DIR,
      format: 'esm',
      // Chunks are named by content: a rebuilt chunk never keeps a stale name.
      chunkFileNames: 'chunk-[hash].js',
      sourcemap: true,
      // The maps name the files and lines; the sources are in the repository, not in every install.
      sourcemapExcludeSources: true,
    });
  } finally {
    await build.close();
  }
  const bin = join(BUNDLE_DIR, BIN_FILE);
  writeFileSync(bin, BIN);
  chmodSync(bin, 0o755);
  process.stdout.write(`bundled src/cli/main.ts into ${relative(ROOT, BUNDLE_DIR)}/\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
