// `sync --report FILE` through the CLI's code in this process against the emulator (exit codes, the
// JSON and the file written are what is checked): the report is written after the run, from the data
// the run loaded; a report that cannot be written is said on stderr and in the JSON ("failed", with
// the reason) and the sync still exits 0; a name that is not .html is exit 2 before anything is spent.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench;
let env: Record<string, string>;

beforeAll(async () => {
  bench = await startBench({ days: 2 });
  env = { GEX_BASE_URL: bench.emulator.baseUrl, GEX_API_KEY: bench.emulator.keys.pro };
}, 60_000);
afterAll(() => bench.close());

const syncArgs = (db: string, report: string) => [
  'sync',
  '--db',
  db,
  '--archive',
  bench.archive,
  '--exchange',
  'deribit',
  '--symbol',
  'BTC',
  '--report',
  report,
  '--json',
];

describe('gexwh sync --report', () => {
  it('writes the report after the run, of what the run loaded, with what changed since the last close', async () => {
    const out = join(bench.dir, 'nightly', 'report.html');
    const run = await runCliInProcess(syncArgs(bench.dbPath, out), { env });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.files_loaded ?? result.filesLoaded).toBeGreaterThan(0);
    expect(result.report).toMatchObject({ outcome: 'written', out, pairs: 1 });
    const html = readFileSync(out, 'utf8');
    expect(result.report.bytes).toBe(Buffer.byteLength(html));
    expect(html).toContain('deribit BTC');
    expect(html).toContain('<h3>What changed since the last close</h3>');
    const [held] = await bench.query<{ last: string }>(`SELECT max(session_date)::VARCHAR AS last FROM levels_close WHERE symbol = 'BTC'`);
    // No fill: the latest capture is the close of the last session loaded, against the close before it.
    expect(html).toContain(`to the latest capture, close ${held!.last} `);
  }, 120_000);

  it('the text summary, and report and chart after it, give the size as people read it (KB), not a byte count', async () => {
    const out = join(bench.dir, 'text', 'report.htm');
    const run = await runCliInProcess(syncArgs(bench.dbPath, out).slice(0, -1), { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`report of 1 pair → ${out.replace(/[.\\/]/g, '\\$&')} \\(\\d+\\.\\d [KM]B\\)\\n`));
    const local = ['--db', bench.dbPath, '--archive', bench.archive];
    const report = await runCliInProcess(['report', ...local, '--exchange', 'deribit', '--symbol', 'BTC', '--out', join(bench.dir, 'text', 'r.HTML')]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^report of 1 pair, \d+ charts → \S+r\.HTML \(\d+\.\d [KM]B\)\n$/);
    const chart = await runCliInProcess(['chart', 'levels', ...local, '--exchange', 'deribit', '--symbol', 'BTC', '--out', join(bench.dir, 'text', 'l.svg')]);
    expect(chart.code, chart.stderr).toBe(0);
    expect(chart.stdout).toMatch(/→ \S+l\.svg \(\d+\.\d KB\)\n$/);
    expect(run.stdout + report.stdout + chart.stdout).not.toMatch(/bytes\)/);
  }, 120_000);

  it('a report that cannot be written: said on stderr and in the JSON, and the sync that loaded data exits 0', async () => {
    const out = join(bench.dir, 'taken.html');
    mkdirSync(out); // a folder where the file should go: the rename fails
    const run = await runCliInProcess(syncArgs(join(bench.dir, 'second.duckdb'), out), { env });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.outcome).toBe('ok');
    expect(result.report).toMatchObject({ outcome: 'failed', out });
    expect(result.report.error).toMatch(/EISDIR|is a directory|ENOTEMPTY|EEXIST/i);
    expect(run.stderr).toContain(`sync --report: the report was not written to ${out}`);
  }, 120_000);

  it('a --report name that is not .html is exit 2 before the sync spends anything', async () => {
    const db = join(bench.dir, 'third.duckdb');
    const run = await runCliInProcess(syncArgs(db, join(bench.dir, 'r.txt')), { env });
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toContain('the report is HTML; name the file .html');
    expect(existsSync(db)).toBe(false);
  });
});
