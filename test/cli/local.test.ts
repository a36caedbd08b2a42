// query, export, rebuild and verify through the CLI, run in this process (the tests check exit codes
// and output), on a warehouse synced from the emulator.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench;
let args: string[];
beforeAll(async () => {
  bench = await startBench();
  await bench.sync({ exchange: 'deribit', symbol: 'BTC' });
  args = ['--db', bench.dbPath, '--archive', bench.archive];
});
afterAll(() => bench.close());

describe('gexwh query', () => {
  it('prints a table, CSV or JSON from a read-only connection', async () => {
    const sql = 'SELECT session_date::VARCHAR AS d, count(*) AS n FROM levels GROUP BY 1 ORDER BY 1';
    const table = await runCliInProcess(['query', ...args, sql]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^d\s+n\n-+\s+-+\n2026-03-08\s+\d+/);
    const csv = await runCliInProcess(['query', ...args, '--format', 'csv', sql]);
    expect(csv.stdout.split('\n')[0]).toBe('d,n');
    const json = await runCliInProcess(['query', ...args, '--format', 'json', sql]);
    expect(JSON.parse(json.stdout)).toHaveLength(3);
  });

  it("bad SQL and writes are usage errors (exit 2) with DuckDB's message", async () => {
    const bad = await runCliInProcess(['query', ...args, 'SELEC 1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/syntax error/);
    const write = await runCliInProcess(['query', ...args, 'DELETE FROM levels']);
    expect(write.code).toBe(2);
    expect(write.stderr).toMatch(/query refused: DELETE is not a read; query runs only reads/);
    const format = await runCliInProcess(['query', ...args, '--format', 'xml', 'SELECT 1']);
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/--format: unknown format "xml"; allowed: table, csv, json/);
  });
});

describe('gexwh export', () => {
  it('writes partitions once, then nothing on a second run', async () => {
    const out = join(bench.dir, 'export');
    const first = await runCliInProcess(['export', ...args, '--out', out, '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ partitions_written: 9 });
    const second = await runCliInProcess(['export', ...args, '--out', out, '--json']);
    expect(JSON.parse(second.stdout)).toMatchObject({ partitions_written: 0, partitions_skipped: 9, rows_written: 0 });
    const bad = await runCliInProcess(['export', ...args, '--out', out, '--table', 'quotes']);
    expect(bad.code).toBe(2);
  });
});

describe('counts in the text summaries, as the sync prints them', () => {
  it('export names its columns as its JSON does and writes thousands with separators; so does rebuild', async () => {
    const exported = await runCliInProcess(['export', ...args, '--out', join(bench.dir, 'export-text')]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^table\s+partitions_written\s+partitions_skipped\s+partitions_removed\s+rows_written$/m);
    expect(exported.stdout).toMatch(/: 9 partition\(s\) written, 0 unchanged, 0 removed, \d{1,3}(,\d{3})+ rows written;/);
    const rebuilt = await runCliInProcess(['rebuild', ...args]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(/rebuild: 9 file\(s\) reloaded from .* \(\d{1,3}(,\d{3})+ rows\)/);
  });
});

describe('gexwh verify and rebuild', () => {
  it('exit 0 on a sound warehouse; a deleted row is reported (exit 4) and repaired from the archive', async () => {
    expect((await runCliInProcess(['verify', ...args])).code).toBe(0);
    const deleted = await bench.query(
      `DELETE FROM strikes_total WHERE session_date = '2026-03-09' AND strike = (SELECT min(strike) FROM strikes_total WHERE session_date = '2026-03-09') RETURNING 1`,
    );
    expect(deleted.length).toBeGreaterThan(0);
    const found = await runCliInProcess(['verify', ...args]);
    expect(found.code).toBe(4);
    expect(found.stdout).toMatch(/row_count_mismatch/);
    const repaired = await runCliInProcess(['verify', ...args, '--repair']);
    expect(repaired.code).toBe(0);
    expect((await runCliInProcess(['verify', ...args])).code).toBe(0);
  });

  it('a flipped byte in an archived file is reported (exit 4); rebuild keeps the tables equal', async () => {
    const checksum = 'SELECT (SELECT sum(hash(l)) FROM levels l)::VARCHAR a, (SELECT sum(hash(s)) FROM strikes_by_expiry s)::VARCHAR b';
    const before = await bench.query(checksum);
    const rebuilt = await runCliInProcess(['rebuild', ...args, '--json']);
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ files_reloaded: 9, problems: [] });
    expect(await bench.query(checksum)).toEqual(before);

    const file = join(bench.archive, 'deribit', 'BTC', '2026-03-10_levels.csv.gz');
    const bytes = readFileSync(file);
    bytes[100] = bytes[100]! ^ 0xff;
    writeFileSync(file, bytes);
    const found = await runCliInProcess(['verify', ...args]);
    expect(found.code).toBe(4);
    expect(found.stdout).toMatch(/hash_mismatch.*2026-03-10 levels/);
  });
});
