// Reliability matrix, hostile SQL: `gexwh query` runs in a DuckDB sandbox and takes exactly one
// read. Every statement below is refused by the query runner the CLI calls, on a warehouse opened in
// the CLI's sandbox (an exit-2 error with one line saying what was refused and why), creates no file
// anywhere, and leaves the warehouse byte for byte as it was; one statement of each kind of refusal
// also goes through the CLI's code in this process (runCliInProcess: exit 2, one line on stderr, no stack). Reads of every table, view and macro still work
// (test/warehouse/query.test.ts).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeOf, GexwhError } from '../../src/core/errors.js';
import { loadFiles } from '../../src/warehouse/loader.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { runQueryOn } from '../../src/warehouse/query.js';
import { runCliInProcess as runCli } from '../helpers/cli.js';
import { BTC, makeTempDir, writeFixture } from '../warehouse/fixtures.js';

let dir: string;
let cleanup: () => void;
let dbPath: string;
let out: string;
let exported: string;

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  dbPath = join(dir, 'wh', 'gex.duckdb');
  out = join(dir, 'out');
  exported = join(dir, 'export');
  mkdirSync(out);
  mkdirSync(exported);
  const wh = await openWarehouse(dbPath);
  try {
    const report = await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)]);
    expect(report.failed).toEqual([]);
    await wh.connection.run(`COPY (SELECT 1 AS a) TO '${join(exported, 'a.parquet')}'`);
    await wh.connection.run('CHECKPOINT');
  } finally {
    wh.close();
  }
});

afterAll(() => {
  sandboxed?.close();
  cleanup();
});

/** The warehouse as `gexwh query --read-dir EXPORTED` opens it, once for every refusal below. */
let sandboxed: Awaited<ReturnType<typeof openWarehouse>> | undefined;
beforeAll(async () => {
  sandboxed = await openWarehouse(dbPath, { sandbox: { readDirectories: [`${exported}/`] } });
});

/** Every file under `root` with its size and sha256: a created, removed or changed file shows. */
function fingerprint(root: string): string[] {
  const entries: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        entries.push(`${path}/`);
        walk(path);
      } else {
        entries.push(`${path} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
      }
    }
  };
  walk(root);
  return entries;
}

const OUT = 'OUT';
const PARQUET = 'EXPORTED';

/** [label, SQL, what the one line must say]; OUT is an empty folder, EXPORTED one holding a Parquet file. */
const REFUSED: Array<[string, string, RegExp]> = [
  ['COPY TO a file', `COPY (SELECT 42) TO '${OUT}/x.csv'`, /refused: file and network access/],
  ['COPY a table TO Parquet', `COPY levels TO '${OUT}/levels.parquet' (FORMAT parquet)`, /refused: file and network access/],
  ['COPY FROM a file', `COPY levels FROM '/etc/passwd'`, /refused/],
  ['EXPORT DATABASE', `EXPORT DATABASE '${OUT}/dump'`, /refused: file and network access/],
  ['read_csv of /etc/passwd', "SELECT * FROM read_csv('/etc/passwd')", /refused: file and network access.*\/etc\/passwd/],
  ['read_text of /etc/passwd', "SELECT content FROM read_text('/etc/passwd')", /refused: file and network access/],
  // Replacement scans are off with external access: the path is taken for a table that does not exist.
  ['a file named in FROM', "FROM '/etc/passwd'", /failed: Catalog Error: Table with name \/etc\/passwd does not exist/],
  ['glob of /etc', "SELECT * FROM glob('/etc/*')", /refused: file and network access/],
  ['a URL', "SELECT * FROM read_csv('https://example.com/x.csv')", /refused: file and network access/],
  ['ATTACH a file', `ATTACH '${OUT}/other.duckdb' AS other`, /refused/],
  ['ATTACH in memory', "ATTACH ':memory:' AS scratch", /refused: ATTACH is not a read/],
  ['DETACH', 'DETACH gex', /refused: DETACH is not a read/],
  ['INSTALL', 'INSTALL httpfs', /refused: LOAD is not a read/],
  ['LOAD', 'LOAD httpfs', /refused: LOAD is not a read/],
  ['SET a setting', 'SET enable_external_access = true', /refused: SET is not a read/],
  ['SET threads', 'SET threads = 1', /refused: SET is not a read/],
  ['RESET', 'RESET lock_configuration', /refused: SET is not a read/],
  ['PRAGMA that sets', "PRAGMA memory_limit = '1GB'", /refused: SET is not a read/],
  ['SET VARIABLE', 'SET VARIABLE x = 1', /refused: SET is not a read/],
  ['USE', 'USE memory', /refused: SET is not a read/],
  ['DELETE', 'DELETE FROM levels', /refused: DELETE is not a read/],
  ['UPDATE', 'UPDATE levels SET spot = 0', /refused: UPDATE is not a read/],
  ['INSERT', 'INSERT INTO levels SELECT * FROM levels', /refused: INSERT is not a read/],
  ['DROP VIEW', 'DROP VIEW levels_total', /refused: DROP is not a read/],
  ['DROP TABLE', 'DROP TABLE levels', /refused: DROP is not a read/],
  ['CREATE TABLE', 'CREATE TABLE x (a INTEGER)', /refused: CREATE is not a read/],
  ['CREATE TEMP TABLE', 'CREATE TEMP TABLE x AS SELECT 1', /refused: CREATE is not a read/],
  ['CREATE MACRO', 'CREATE TEMP MACRO f(x) AS x + 1', /refused: CREATE is not a read/],
  ['ALTER', 'ALTER TABLE levels RENAME TO l2', /refused: ALTER is not a read/],
  ['CHECKPOINT', 'CHECKPOINT', /refused: CALL is not a read/],
  ['VACUUM', 'VACUUM', /refused: VACUUM is not a read/],
  ['BEGIN', 'BEGIN TRANSACTION', /refused: TRANSACTION is not a read/],
  ['PREPARE', 'PREPARE p AS SELECT 1', /refused: PREPARE is not a read/],
  ['CALL', "CALL pragma_table_info('levels')", /refused: CALL is not a read/],
  ['EXPLAIN of a COPY', `EXPLAIN COPY (SELECT 1) TO '${OUT}/x.csv'`, /refused/],
  ['EXPLAIN ANALYZE', 'EXPLAIN ANALYZE SELECT 1', /refused: EXPLAIN is not a read/],
  ['two reads in one argument', 'SELECT 1; SELECT 2', /refused: 2 statements in one argument/],
  ['a read then a write', 'SELECT 1; DELETE FROM levels', /refused: 2 statements in one argument/],
  ['a read then a COPY', `SELECT 1;COPY (SELECT 1) TO '${OUT}/y.csv'`, /refused: 2 statements in one argument/],
  ['a write hidden after a comment', `/* SELECT */ DELETE FROM levels -- ; SELECT 1`, /refused: DELETE is not a read/],
  ['a PIVOT without its IN list (it creates a type)', 'PIVOT levels ON regime USING count(*)', /refused: 2 statements/],
  ['COPY into a --read-dir folder', `COPY (SELECT 1) TO '${PARQUET}/x.csv'`, /refused: COPY is not a read/],
  ['a file beside a --read-dir folder', `FROM read_csv('${PARQUET}/../bybit_BTC_2026-11-20_levels.csv.gz')`, /refused: file and network access/],
];

/** One statement of each kind of refusal, also run through the built CLI. */
const THROUGH_THE_CLI = new Set([
  'COPY TO a file',
  'a file named in FROM',
  'DELETE',
  'SET a setting',
  'two reads in one argument',
  'COPY into a --read-dir folder',
]);
const CLI_CASES = REFUSED.filter(([label]) => THROUGH_THE_CLI.has(label));
if (CLI_CASES.length !== THROUGH_THE_CLI.size) throw new Error('THROUGH_THE_CLI names a case REFUSED does not have');

describe('gexwh query refuses everything but one read: exit 2, one line, no file, warehouse unchanged', () => {
  // The CLI prints a GexwhError as `error: <message>` plus one line per hint, and exits with its
  // exit code: a message of one line, no hints and exit code 2 is what the user sees.
  it.each(REFUSED)('%s', async (_label, template, message) => {
    const sql = template.replaceAll(OUT, out).replaceAll(PARQUET, exported);
    const before = fingerprint(dir);
    // --read-dir is given every time: even a folder the user opened for reading takes no write.
    const error = await runQueryOn(sandboxed!.connection, sql).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GexwhError);
    expect(exitCodeOf(error)).toBe(2);
    const refusal = error as GexwhError;
    expect(refusal.message).not.toContain('\n');
    expect(refusal.hints).toEqual({});
    expect(refusal.message).toMatch(/^query (refused|failed): /);
    expect(refusal.message).toMatch(message);
    expect(fingerprint(dir)).toEqual(before);
  });

  it.each(CLI_CASES)('through the CLI: %s', async (_label, template, message) => {
    const sql = template.replaceAll(OUT, out).replaceAll(PARQUET, exported);
    const before = fingerprint(dir);
    const result = await runCli(['query', '--db', dbPath, '--read-dir', exported, sql], { cwd: dir });
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: query (refused|failed): /);
    expect(lines[0]).toMatch(message);
    expect(result.stdout).toBe('');
    expect(fingerprint(dir)).toEqual(before);
  });

  it('reads the warehouse, and files only under a --read-dir folder', async () => {
    const read = await runCli(['query', '--db', dbPath, '--format', 'csv', 'SELECT count(*) AS n FROM levels_total'], { cwd: dir });
    expect(read.stderr).toBe('');
    expect(read.stdout).toBe('n\n2\n');
    const sql = `SELECT a FROM read_parquet('${join(exported, '*.parquet')}')`;
    const allowed = await runCli(['query', '--db', dbPath, '--format', 'csv', '--read-dir', exported, sql], { cwd: dir });
    expect(allowed.stdout).toBe('a\n1\n');
    const without = await runCli(['query', '--db', dbPath, sql], { cwd: dir });
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/refused: file and network access.*--read-dir/);
    const missing = await runCli(['query', '--db', dbPath, '--read-dir', join(dir, 'nope'), 'SELECT 1'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--read-dir: .*nope is not an existing folder/);
    expect(existsSync(join(dir, 'nope'))).toBe(false);
  });
});

describe('read-only commands given a --db that does not exist: exit 2, a clear error, nothing created', () => {
  it.each([['query', 'SELECT 1'], ['status'], ['export', '--out', 'OUTDIR'], ['verify']])('%s', async (command, ...args) => {
    const root = join(dir, `missing-${command}`);
    const db = join(root, 'data', 'gex.duckdb');
    const resolved = args.map((a) => (a === 'OUTDIR' ? join(root, 'out') : a));
    const result = await runCli([command, '--db', db, '--archive', join(root, 'raw'), ...resolved], {
      cwd: dir,
      env: { GEX_BASE_URL: 'http://127.0.0.1:9', GEX_API_KEY: 'gex_abcdefghijklmnopqrstuvwxyz012345' },
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/no warehouse at .*gex\.duckdb/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(root)).toBe(false);
  });
});
