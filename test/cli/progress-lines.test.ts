// Progress on a terminal (a pseudo-TTY from util-linux `script`), drawn from the first update
// (GEXWH_PROGRESS_AFTER_MS=0): every line a sync draws says what it is doing (no bare spinner), each
// phase's line ends with a newline before the next phase or the summary, and export's bar ends at its
// true final count (it ended at 311/312 when the last update fell between two redraws).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { CLI_PATH } from '../helpers/cli.js';
import { createTaskProgress } from '../../src/cli/progress.js';
import type { CommandContext } from '../../src/cli/context.js';

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 3, expirations: 2, strikes: 6, seed: 7, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-progress-lines-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** The CLI under a pseudo-terminal 120 columns wide; everything it drew. */
function underTty(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const command = `stty cols 120 rows 24; ${[process.execPath, CLI_PATH, ...args].map(quote).join(' ')}`;
  const env = { ...process.env, GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.admin, GEXWH_PROGRESS_AFTER_MS: '0' };
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Each drawing of the progress line (what follows a carriage return and erase-line), as drawn. */
const drawings = (output: string) => output.split('\r\x1b[K').slice(1);
const WORDS = /^ {2}(reading coverage|listing manifests|planning|downloading files|loading into the warehouse|exporting files)\b/;

it('sync: every progress line names its step, and each step ends its line with a newline', async () => {
  const db = join(dir, 'tty.duckdb');
  const run = await underTty(['sync', '--db', db, '--archive', join(dir, 'raw'), '--exchange', 'deribit', '--symbol', 'BTC']);
  expect(run.code, run.output).toBe(0);
  const drawn = drawings(run.output);
  expect(drawn.length).toBeGreaterThan(0);
  for (const line of drawn) expect(line).toMatch(WORDS);
  // A step's last drawing ends the line; the next step starts on a line of its own.
  const steps = drawn.map((line) => WORDS.exec(line)![1]);
  for (let i = 1; i < drawn.length; i++) {
    if (steps[i] !== steps[i - 1]) expect(drawn[i - 1], `${steps[i - 1]} → ${steps[i]}`).toMatch(/\r?\n$/);
  }
  expect(drawn.at(-1)).toMatch(/\r?\n(created a new warehouse|sync ok)/);
  expect(run.output).toMatch(/\nsync ok: 9 file\(s\) loaded/);
}, 120_000);

it('export: the bar ends at its true final count, on a line of its own', async () => {
  const db = join(dir, 'tty.duckdb');
  const run = await underTty(['export', '--db', db, '--out', join(dir, 'out')]);
  expect(run.code, run.output).toBe(0);
  const bars = drawings(run.output).filter((line) => line.startsWith('  exporting files'));
  expect(bars.length).toBeGreaterThan(0);
  const last = bars.at(-1)!;
  const [, done, total] = /exporting files {2}(\d+)\/(\d+)/.exec(last)!;
  expect(Number(done)).toBe(Number(total));
  expect(last).toMatch(/\r?\n/);
  // The total is the export's own count of what it wrote.
  expect(Number(total)).toBeGreaterThan(1);
}, 120_000);

it('a task bar whose last updates come faster than its redraws still ends at N/N with a newline', () => {
  const writes: string[] = [];
  const stderr = process.stderr as NodeJS.WriteStream & { isTTY: boolean };
  const saved = { write: stderr.write, isTTY: stderr.isTTY, after: process.env.GEXWH_PROGRESS_AFTER_MS };
  stderr.isTTY = true;
  stderr.write = ((chunk: string) => writes.push(chunk) > 0) as typeof stderr.write;
  process.env.GEXWH_PROGRESS_AFTER_MS = '0';
  try {
    const ctx = { out: { quiet: false }, settings: { json: false } } as unknown as CommandContext;
    const bar = createTaskProgress(ctx, 'export');
    // 312 updates within one redraw interval: only the first is drawn as it comes.
    for (let done = 1; done <= 312; done++) bar.onProgress(done, 312);
    bar.done();
  } finally {
    stderr.write = saved.write;
    stderr.isTTY = saved.isTTY;
    if (saved.after === undefined) delete process.env.GEXWH_PROGRESS_AFTER_MS;
    else process.env.GEXWH_PROGRESS_AFTER_MS = saved.after;
  }
  expect(writes.length).toBeGreaterThan(1);
  expect(writes.at(-1)).toMatch(/exporting files {2}312\/312 .*\n$/);
});
