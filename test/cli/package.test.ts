// The published package: `npm pack` ships what a user runs (the bundled binary dist/cli with its source
// maps, dist/src, dist/emulator, sql, README, LICENSE, CHANGELOG), and `npx gexwh` from the packed tarball, installed in an app's node_modules, works.
// Offline: the app's dependencies are linked to this checkout's node_modules instead of downloaded.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };

let dir: string;
let emulator: Emulator;
let packed: { filename: string; files: { path: string }[] };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-pack-'));
  // dist/ is built by `npm test` before vitest runs; --ignore-scripts keeps pack from building again.
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  packed = (JSON.parse(out) as (typeof packed)[])[0]!;
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 2, strikes: 6, seed: 4, symbols: ['BTC'] });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `npx gexwh ...` in `cwd`; with `bin`, the installed bin link run by node directly (no npm start). */
function npx(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
  bin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [command, prefix] = bin === undefined ? ['npx', ['--offline', 'gexwh']] : [process.execPath, [bin]];
    const child = spawn(command, [...prefix, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm pack', () => {
  it('ships what a user runs: the bundled binary, dist/src, the emulator (gexwh emulate, demo), sql, the docs; no bench, no tests', () => {
    const paths = packed.files.map((f) => f.path);
    const allowed =
      /^(dist\/cli\/[\w-]+\.js(\.map)?|dist\/(src|emulator)\/.+\.js|sql\/\d{3}_[a-z0-9_]+\.sql|sql\/views\.sql|sql\/new-warehouse\.sql|package\.json|README\.md|LICENSE|CHANGELOG\.md|docs\/[a-z0-9-]+\.md|assets\/fonts\/(Inter-Regular\.ttf|OFL\.txt))$/;
    expect(paths.filter((p) => !allowed.test(p))).toEqual([]);
    expect(paths).toContain('dist/cli/gexwh.js');
    expect(paths).toContain('dist/cli/main.js.map');
    expect(paths).toContain('dist/emulator/index.js');
    expect(paths).toContain('LICENSE');
    expect(paths).toContain('assets/fonts/Inter-Regular.ttf');
    expect(paths).toContain('CHANGELOG.md');
    expect(paths.some((p) => p.startsWith('sql/'))).toBe(true);
    expect(paths).toContain('sql/views.sql'); // the views and macros, applied after the migrations and copied into every export
    expect(paths).toContain('sql/new-warehouse.sql'); // what a new warehouse runs in place of the migrations
  });

  it('npx gexwh from the tarball runs: --version, and a sync that applies the shipped migrations', async () => {
    const app = join(dir, 'app');
    const installed = join(app, 'node_modules', 'gexwh');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', join(dir, packed.filename), '-C', installed, '--strip-components', '1']);
    for (const dep of Object.keys(pkg.dependencies)) {
      const top = dep.startsWith('@') ? dep.split('/')[0]! : dep;
      try {
        symlinkSync(join(ROOT, 'node_modules', top), join(app, 'node_modules', top));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    // What npm install does for a bin: a link in node_modules/.bin, executable.
    mkdirSync(join(app, 'node_modules', '.bin'));
    symlinkSync('../gexwh/dist/cli/gexwh.js', join(app, 'node_modules', '.bin', 'gexwh'));
    chmodSync(join(installed, 'dist/cli/gexwh.js'), 0o755);

    const version = await npx(['--version'], app);
    expect(version.stdout.trim()).toBe(pkg.version);
    const sync = await npx(['sync', '--json', '--exchange', 'deribit', '--symbol', 'BTC'], app, {
      GEX_BASE_URL: emulator.baseUrl,
      GEX_API_KEY: emulator.keys.pro,
    });
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ outcome: 'ok', files_loaded: 6 });
    // The chart's PNG needs the font the package ships: found from the installed dist/. The bin npx
    // found above, run directly (npx itself was checked).
    const bin = join(app, 'node_modules', '.bin', 'gexwh');
    const chart = await npx(['chart', 'profile', '--exchange', 'deribit', '--symbol', 'BTC', '--out', 'p.png'], app, {}, bin);
    expect(chart.code, chart.stderr).toBe(0);
    expect(readFileSync(join(app, 'p.png')).subarray(1, 4).toString('latin1')).toBe('PNG');
    // The SVG carries a subset of that font, cut by subset-font (HarfBuzz's WebAssembly) from the installed package.
    const svg = await npx(['chart', 'oi', '--exchange', 'deribit', '--symbol', 'BTC', '--out', 'o.svg'], app, {}, bin);
    expect(svg.code, svg.stderr).toBe(0);
    expect(readFileSync(join(app, 'o.svg'), 'utf8')).toMatch(/<style>@font-face\{font-family:"Inter";src:url\(data:font\/ttf;base64,/);
  });
});
