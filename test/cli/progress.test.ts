// Progress: drawn on a terminal for phases longer than a second (what, n of N, rate, ETA), absent
// when stderr is a pipe or with --quiet. The terminal is a pseudo-TTY from util-linux `script`. A
// phase is kept long by an answer the emulator holds until the test has seen the line it waits for
// (a hold the test releases), not by fixed delays; the absent cases draw from the first update
// (GEXWH_PROGRESS_AFTER_MS=0) with one answer 400 ms late, past the first redraw (250 ms). The cases
// on a pipe run the CLI's code in this process, whose stderr is no terminal (a vitest worker's
// isTTY is unset): what a pipe would get is captured.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitToWidth, progressLine } from '../../src/cli/progress.js';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { CLI_PATH, runCliInProcess } from '../helpers/cli.js';
import { gate } from '../helpers/gate.js';
import { buildMigratedWarehouse, seedWarehouse } from '../helpers/migrated-warehouse.js';

let emulator: Emulator;
let dir: string;
let template: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 3, expirations: 2, strikes: 6, seed: 3, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-progress-'));
  template = await buildMigratedWarehouse(dir);
});

/** A warehouse path in this file's folder, already created and migrated (no case here is about creating one). */
function migrated(name: string): string {
  const path = join(dir, name);
  seedWarehouse(template, path);
  return path;
}
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * Runs the CLI with a pseudo-terminal as its stdout and stderr; resolves with everything it drew.
 * `onOutput` sees everything drawn so far after each chunk (to release a held answer).
 */
function runUnderTty(
  args: readonly string[],
  env: Record<string, string>,
  columns?: number,
  onOutput?: (output: string) => void,
): Promise<{ code: number | null; output: string }> {
  // The pseudo-terminal is 0 columns wide (unknown) unless told otherwise.
  const command = `${columns === undefined ? '' : `stty cols ${columns} rows 24; `}${[process.execPath, CLI_PATH, ...args].map(quote).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...env, COLUMNS: '200' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const seen = (chunk: string) => {
      output += chunk;
      onOutput?.(output);
    };
    child.stdout.setEncoding('utf8').on('data', seen);
    child.stderr.setEncoding('utf8').on('data', seen);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * Holds the answers to requests matching `match` (after the first `pass`) until the output shows
 * `drawn`; returns the onOutput that releases them. A run that ends without drawing releases them too
 * (the test then fails on its output instead of hanging).
 */
function holdUntilDrawn(where: 'api' | 'storage', match: RegExp, drawn: RegExp, pass = 0) {
  const release = gate();
  if (pass > 0) emulator.faults.add({ where, match, times: pass, action: { kind: 'delay', ms: 0 } });
  emulator.faults.add({ where, match, times: 100, action: { kind: 'hold', until: release.until } });
  return {
    onOutput: (output: string) => {
      if (drawn.test(output)) release.open();
    },
    release: () => release.open(),
  };
}

/** Progress from the first update on, and one answer late past the first redraw: a line would be drawn if it were going to be. */
const DRAW_AT_ONCE = { GEXWH_PROGRESS_AFTER_MS: '0' };
function oneLateFile() {
  emulator.faults.add({ where: 'storage', match: /\/files\//, times: 1, action: { kind: 'delay', ms: 400 } });
}

describe('progress', () => {
  it('formats what, n of N, rate and ETA', () => {
    const line = progressLine({ phase: 'download', startedMs: 0, done: 3, total: 9, bytes: 3 * 1024 * 1024, failed: 0 }, 6000);
    expect(line).toBe('  downloading files  3/9  30.0/min  ETA 12s  3.0 MB (512.0 KB/s)  elapsed 6s');
    expect(progressLine({ phase: 'manifests', startedMs: 0, done: 4, total: 16, bytes: 0, failed: 0 }, 125_000)).toBe(
      '  listing manifests  4/16  1.9/min  ETA 6m15s  elapsed 2m05s',
    );
    expect(progressLine({ phase: 'download', startedMs: 0, done: 40, total: 100, bytes: 0, failed: 0 }, 2000)).toBe(
      '  downloading files  40/100  20/s  ETA 3s  elapsed 2s',
    );
    expect(progressLine({ phase: 'load', startedMs: 0, done: 6, total: 9, bytes: 0, failed: 0 }, 3000)).toBe(
      '  loading into the warehouse  6/9  2.0/s  ETA 2s  elapsed 3s',
    );
    // A manifest listing counts files against an estimate (the API gives no totals): ~N, never below n.
    expect(progressLine({ phase: 'manifests', startedMs: 0, done: 400, total: 1098, estimated: true, unit: 'files', bytes: 0, failed: 0 }, 2000)).toBe(
      '  listing manifests  400/~1098 files  200/s  ETA ~3s  elapsed 2s',
    );
    expect(progressLine({ phase: 'manifests', startedMs: 0, done: 1200, total: 1098, estimated: true, unit: 'files', bytes: 0, failed: 0 }, 3000)).toBe(
      '  listing manifests  1200/~1200 files  400/s  elapsed 3s',
    );
    expect(progressLine({ phase: 'fill', startedMs: 0, done: 0, total: undefined, bytes: 0, failed: 0 }, 3000)).toBe(
      '  filling levels from /history/levels  elapsed 3s',
    );
  });

  it('estimates the time left by bytes when the phase knows them: small files first do not promise an early end', () => {
    // 30 of 32 files done in 3 s, but they were the small ones: 10 MB of 100 MB. Counting files says 0 s left.
    const state = { phase: 'load' as const, startedMs: 0, done: 30, total: 32, bytes: 10e6, totalBytes: 100e6, failed: 0 };
    expect(progressLine(state, 3000)).toContain('ETA 27s');
    expect(progressLine({ ...state, totalBytes: undefined }, 3000)).toContain('ETA 0s');
    expect(progressLine({ phase: 'verify', startedMs: 0, done: 5, total: 24, bytes: 0, failed: 0 }, 1000)).toBe(
      '  verifying the archive  5/24  5.0/s  ETA 4s  elapsed 1s',
    );
  });

  it('is cut to the terminal width, so the line is rewritten in place instead of wrapping', () => {
    const line = progressLine({ phase: 'rebuild', startedMs: 0, done: 3, total: 9, bytes: 3e6, failed: 0 }, 6000);
    expect(fitToWidth(line, 40)).toBe(`${line.slice(0, 38)}…`);
    expect(fitToWidth(line, 40)).toHaveLength(39);
    expect(fitToWidth(line, 200)).toBe(line);
    expect(fitToWidth(line, undefined)).toBe(line);
  });

  it('is drawn on a terminal during a download phase longer than a second', async () => {
    // The first file comes at once, the second is held until the line (with a rate and an ETA, so
    // after one file) is drawn: past the default first draw of one second.
    const line = /downloading files {2}\d\/9 {2}[\d.]+\/(s|min) {2}ETA \d+s/;
    const held = holdUntilDrawn('storage', /\/files\//, line, 1);
    const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro };
    const run = await runUnderTty(
      ['sync', '--db', migrated('tty.duckdb'), '--archive', join(dir, 'tty-raw'), '--exchange', 'deribit', '--symbol', 'BTC', '--concurrency', '1'],
      env,
      undefined,
      held.onOutput,
    );
    held.release();
    emulator.faults.clear();
    expect(run.code).toBe(0);
    expect(run.output).toMatch(line);
    expect(run.output).toMatch(/sync ok: 9 file\(s\) loaded/);
  });

  it('is absent with --quiet on a terminal, and when stderr is a pipe', async () => {
    oneLateFile();
    const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro, ...DRAW_AT_ONCE };
    const quiet = await runUnderTty(
      ['sync', '--quiet', '--db', migrated('q.duckdb'), '--archive', join(dir, 'q-raw'), '--exchange', 'deribit', '--symbol', 'BTC', '--concurrency', '1'],
      env,
    );
    expect(quiet.code).toBe(0);
    expect(quiet.output).toMatch(/sync ok: 9 file\(s\) loaded/);
    expect(quiet.output).not.toMatch(/downloading files/);
    oneLateFile();
    const piped = await runCliInProcess(
      ['sync', '--json', '--db', migrated('p.duckdb'), '--archive', join(dir, 'p-raw'), '--exchange', 'deribit', '--symbol', 'BTC', '--concurrency', '1'],
      { env },
    );
    emulator.faults.clear();
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    expect(JSON.parse(piped.stdout)).toMatchObject({ files_loaded: 9 });
  });

  it('counts capture targets on a terminal when a capture lasts more than a second', async () => {
    // The first venue's term-oi answer comes at once, the others' are held until the count is drawn
    // (past the default first draw of one second).
    const line = /capturing live snapshots {2}[12]\/3/;
    const held = holdUntilDrawn('api', /\/gex\/term-oi\//, line, 1);
    const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro };
    const run = await runUnderTty(
      ['capture', '--db', migrated('c.duckdb'), '--archive', join(dir, 'c-raw'), '--symbol', 'BTC', '--exchange', 'bybit,deribit,okx', '--force'],
      env,
      undefined,
      held.onOutput,
    );
    held.release();
    emulator.faults.clear();
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(line);
  });

  it('rebuild, verify and report count their files on a terminal, per file, cut to its width; nothing on a pipe', async () => {
    const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro };
    const local = ['--db', migrated('long.duckdb'), '--archive', join(dir, 'long-raw')];
    const synced = await runCliInProcess(['sync', ...local, '--exchange', 'deribit', '--symbol', 'BTC'], { env });
    expect(synced.code, synced.stderr).toBe(0);
    // Drawn from the first update on (not after a second), so the test does not hang on timing.
    const now = { GEXWH_PROGRESS_AFTER_MS: '0' };
    const rebuild = await runUnderTty(['rebuild', ...local], now);
    expect(rebuild.code, rebuild.output).toBe(0);
    expect(rebuild.output).toMatch(/rebuilding from the archive {2}\d\/9 /);
    const verify = await runUnderTty(['verify', ...local], now);
    expect(verify.output).toMatch(/verifying the archive {2}\d\/9 .*KB/);
    const report = await runUnderTty(['report', ...local, '--out', join(dir, 'long.html')], now);
    expect(report.code, report.output).toBe(0);
    expect(report.output).toMatch(/drawing the report {2}\d+\/\d+ /);
    // A narrow terminal: every drawn line is cut to its width.
    const narrow = await runUnderTty(['verify', ...local], now, 30);
    const drawn = narrow.output.split('\r').filter((line) => line.includes('verifying'));
    expect(drawn.length).toBeGreaterThan(0);
    for (const line of drawn) expect(line.replace('\x1b[K', '').length, line).toBeLessThan(30);
    // On a pipe: no redrawn line, only one line for the stage once it ends.
    const piped = await runCliInProcess(['verify', ...local], { env: now });
    expect(piped.stderr).toMatch(/^verifying the archive {2}9\/9 [^\r]*\n$/);
  });

  it("counts a single pair's manifest files against the coverage's estimate on a terminal, and nowhere else", async () => {
    // The pair's one manifest page is held until the count is drawn (past the first draw, 1 s); the
    // absent cases draw from the first update with the page 400 ms late.
    const page = /\/history\/files\/deribit\/BTC/;
    const lateListing = () => emulator.faults.add({ match: page, times: 1, action: { kind: 'delay', ms: 400 } });
    const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro };
    const args = (name: string) => [
      'plan',
      '--db',
      join(dir, `${name}.duckdb`),
      '--archive',
      join(dir, `${name}-raw`),
      '--exchange',
      'deribit',
      '--symbol',
      'BTC',
    ];
    // 3 sessions of 3 files in the coverage: ~9 files, none listed while the page is on its way.
    const line = /listing manifests {2}0\/~9 files {2}elapsed \d+s/;
    const held = holdUntilDrawn('api', page, line);
    const tty = await runUnderTty(args('list-tty'), env, undefined, held.onOutput);
    held.release();
    emulator.faults.clear();
    expect(tty.code, tty.output).toBe(0);
    expect(tty.output).toMatch(line);
    lateListing();
    const quiet = await runUnderTty([...args('list-quiet'), '--quiet'], { ...env, ...DRAW_AT_ONCE });
    expect(quiet.code, quiet.output).toBe(0);
    expect(quiet.output).not.toMatch(/listing manifests/);
    lateListing();
    const piped = await runCliInProcess([...args('list-pipe'), '--json'], { env: { ...env, ...DRAW_AT_ONCE } });
    emulator.faults.clear();
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    expect(JSON.parse(piped.stdout)).toMatchObject({ command: 'plan' });
  });
});
