// The binary users run is the bundle (dist/cli, built by `npm run build`): a command reads a few dozen
// files at start instead of ~500 (DuckDB's API, undici and zod are bundled), and still finds the
// package's sql/, its version and the emulator from there.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
const BIN = join(ROOT, pkg.bin.gexwh!);
const HOOK = fileURLToPath(new URL('../helpers/log-modules.mjs', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every module file the process loaded (with the hook). */
  modules: string[];
}

/** The binary as a child process, with the module hook preloaded. */
function runBin(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', HOOK, BIN, ...args], {
      env: { ...process.env, GEX_API_KEY: '', GEX_BASE_URL: '', GEXWH_DB: '', GEXWH_ARCHIVE: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = stderr.split('\n');
      const modules = [...new Set(lines.filter((l) => l.startsWith('module-loaded: ')).map((l) => l.slice('module-loaded: '.length)))];
      resolve({ code, stdout, stderr: lines.filter((l) => !l.startsWith('module-loaded: ')).join('\n'), modules });
    });
  });
}

const inPackage = (modules: string[], name: string) => modules.filter((url) => url.includes(`/node_modules/${name}/`));

let dir: string;
let emulator: Emulator;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-bundle-'));
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 2, strikes: 6, seed: 4, symbols: ['BTC'] });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the bundled binary', () => {
  it("is package.json's bin, in dist/cli, executable", () => {
    expect(pkg.bin.gexwh).toBe('dist/cli/gexwh.js');
    accessSync(BIN, constants.X_OK);
  });

  it('--version reads the package version from the bundle, loading neither DuckDB nor the HTTP client', async () => {
    const run = await runBin(['--version']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
    expect(inPackage(run.modules, '@duckdb/node-bindings')).toEqual([]);
    expect(run.modules.filter((url) => url.includes('/node_modules/'))).toEqual([]);
  });

  it('a no-op sync reads a few dozen module files: DuckDB, undici, zod and commander come bundled', async () => {
    const args = ['sync', '--json', '--exchange', 'deribit', '--symbol', 'BTC', '--db', join(dir, 'gex.duckdb'), '--archive', join(dir, 'raw')];
    const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro };
    const first = await runBin(args, env);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ outcome: 'ok', files_loaded: 6 });
    const noop = await runBin(args, env);
    expect(noop.code, noop.stderr).toBe(0);
    expect(JSON.parse(noop.stdout)).toMatchObject({ outcome: 'ok', files_loaded: 0 });
    for (const name of ['@duckdb/node-api', 'undici', 'zod', 'commander']) expect(inPackage(noop.modules, name)).toEqual([]);
    // The native binding is read where npm put it; the rest is the bundle's chunks.
    expect(inPackage(noop.modules, '@duckdb/node-bindings').length).toBeGreaterThan(0);
    expect(noop.modules.length).toBeLessThan(100);
  });
});
