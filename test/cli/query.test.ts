// gexwh query in-process (src/cli/run.ts, the binary's code path): the streaming formats, the
// table's --max-rows, --timeout and config queryTimeout, --out FILE.csv|.json|.jsonl|.parquet (temp
// file, rename, --force), and the one escaping rule for a terminal. Signals, pipes and heap limits
// are in query-process.test.ts.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFiles } from '../../src/warehouse/loader.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { runQuery } from '../../src/warehouse/query.js';
import { runCliInProcess, type CliResult } from '../helpers/cli.js';
import { BTC, makeTempDir, writeFixture } from '../warehouse/fixtures.js';

const ENDLESS = 'SELECT count(*) FROM range(100000000000) t(i) WHERE i % 7 = 3';
/** Values a CSV or JSON writer must get right: a comma, a quote, a newline, NULL, a time, a list, a big integer. */
const TRICKY = `SELECT * FROM (VALUES
  (1, 'plain', TIMESTAMPTZ '2026-11-20 14:00:00+00', [1, 2], 9007199254740993::BIGINT),
  (2, 'a,b "quoted"' || chr(10) || 'line', NULL, [], 0::BIGINT)) t(n, text, ts, list, big)`;
const HOSTILE_TEXT = "'ok' || chr(27) || ']0;pwned' || chr(7) || chr(155) || '31m'";
/** What a terminal would act on: C0 but newline, DEL, C1. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let dir: string;
let cleanup: () => void;
let db: string;

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  db = join(dir, 'gex.duckdb');
  const wh = await openWarehouse(db);
  try {
    expect((await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)])).failed).toEqual([]);
  } finally {
    wh.close();
  }
});
afterAll(() => cleanup());

function query(args: readonly string[], options: { terminal?: boolean; cwd?: string } = {}): Promise<CliResult> {
  const before = process.stdout.isTTY;
  process.stdout.isTTY = options.terminal ?? false;
  return runCliInProcess(['query', '--db', db, ...args], { cwd: options.cwd ?? dir }).finally(() => {
    process.stdout.isTTY = before;
  });
}

/** A fresh empty folder for files a test writes. */
function folder(name: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  return path;
}

describe('formats', () => {
  it('json is the rows as JSON.stringify lays them out, jsonl one compact row a line, both the rows runQuery reads', async () => {
    const { rows } = await runQuery(db, TRICKY);
    const json = await query(['--format', 'json', TRICKY]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe(`${JSON.stringify(rows, null, 2)}\n`);
    const jsonl = await query(['--format', 'jsonl', TRICKY]);
    expect(jsonl.stdout).toBe(rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    expect((await query(['--format', 'json', `${TRICKY} WHERE false`])).stdout).toBe('[]\n');
    expect((await query(['--format', 'jsonl', `${TRICKY} WHERE false`])).stdout).toBe('');
  });

  it('csv quotes what needs it and keeps full precision', async () => {
    const csv = await query(['--format', 'csv', TRICKY]);
    expect(csv.stdout).toBe('n,text,ts,list,big\n1,plain,2026-11-20T14:00:00.000Z,"1,2",9007199254740993\n2,"a,b ""quoted""\nline",,,0\n');
  });

  it('an unknown format is exit 2 naming the allowed ones', async () => {
    const result = await query(['--format', 'xml', 'SELECT 1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--format: unknown format "xml"; allowed: table, csv, json, jsonl/);
  });
});

describe('the table prints at most --max-rows and says how many it left out', () => {
  it('--max-rows N: N rows, then the count of the rest', async () => {
    const result = await query(['--max-rows', '3', 'SELECT i FROM range(10) t(i)']);
    expect(result.stdout).toBe(
      'i\n-\n0\n1\n2\n(3 of 10 rows shown, 7 left out: --max-rows N shows more, 0 all; --format csv|jsonl or --out FILE gives every row)\n',
    );
  });

  it('on a terminal 1,000 by default; to a pipe every row; --max-rows 0 every row', async () => {
    const sql = 'SELECT i FROM range(2500) t(i)';
    const terminal = await query([sql], { terminal: true });
    expect(terminal.stdout.split('\n')).toHaveLength(2 + 1000 + 2);
    expect(terminal.stdout).toMatch(/\n999\n\(1,000 of 2,500 rows shown, 1,500 left out: /);
    const piped = await query([sql]);
    expect(piped.stdout.split('\n')).toHaveLength(2 + 2500 + 1);
    expect(piped.stdout).not.toMatch(/left out/);
    expect((await query(['--max-rows', '0', sql], { terminal: true })).stdout.split('\n')).toHaveLength(2 + 2500 + 1);
  });

  it('--max-rows with another format, or a bad count, is exit 2', async () => {
    const other = await query(['--format', 'csv', '--max-rows', '5', 'SELECT 1']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/--max-rows is for the table format/);
    expect((await query(['--max-rows', '-1', 'SELECT 1'])).code).toBe(2);
  });
});

describe('--timeout and config queryTimeout cancel the statement', () => {
  it('--timeout 1: exit 124, its own message, the JSON error code "timeout"', async () => {
    const result = await query(['--timeout', '1', ENDLESS]);
    expect(result.code, result.stderr).toBe(124);
    expect(result.stderr).toMatch(/^error: query cancelled: it ran past --timeout 1 s$/m);
    const json = await query(['--json', '--timeout', '0.5', ENDLESS]);
    expect(json.code).toBe(124);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'timeout', exitCode: 124 } });
  }, 60_000);

  it('queryTimeout from the config file; a bad value there or on the flag is exit 2', async () => {
    const cwd = folder('config-timeout');
    writeFileSync(join(cwd, 'gexwh.config.json'), JSON.stringify({ queryTimeout: 1 }));
    const result = await query([ENDLESS], { cwd });
    expect(result.code, result.stderr).toBe(124);
    expect((await query(['--timeout', '2', 'SELECT 1'], { cwd })).code).toBe(0);
    writeFileSync(join(cwd, 'gexwh.config.json'), JSON.stringify({ queryTimeout: 'soon' }));
    const bad = await query(['SELECT 1'], { cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/field "queryTimeout"/);
    const flag = await query(['--timeout', 'soon', 'SELECT 1']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--timeout.*expected seconds from 0 to 604800/);
  }, 60_000);
});

describe('--out FILE writes the result itself', () => {
  it('.csv, .json and .jsonl hold the bytes the formats print; the JSON result says what was written', async () => {
    const out = folder('out-text');
    for (const format of ['csv', 'json', 'jsonl'] as const) {
      const file = join(out, `r.${format}`);
      const written = await query(['--json', '--out', file, TRICKY]);
      expect(written.code, written.stderr).toBe(0);
      expect(JSON.parse(written.stdout)).toEqual({ out: file, format, rows: 2, columns: 5 });
      expect(readFileSync(file, 'utf8')).toBe((await query(['--format', format, TRICKY])).stdout);
    }
    expect(readdirSync(out).sort()).toEqual(['r.csv', 'r.json', 'r.jsonl']);
  });

  it('.parquet through DuckDB’s writer: every row and type, read back by another reader', async () => {
    const out = folder('out-parquet');
    const file = join(out, 'levels.parquet');
    const sql = 'SELECT exchange, symbol, timestamp_utc, spot, flip_count FROM levels_total ORDER BY timestamp_utc';
    const written = await query(['--out', file, sql]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toBe(`wrote 2 row(s) of 5 column(s) to ${file} (parquet)\n`);
    const rows = await parquetReadObjects({ file: await asyncBufferFromFile(file) });
    const expected = (await runQuery(db, sql)).rows;
    expect(rows.map((r) => ({ ...r, timestamp_utc: (r.timestamp_utc as Date).toISOString() }))).toEqual(expected);
    expect(readdirSync(out)).toEqual(['levels.parquet']);
  });

  it('an existing file is kept unless --force; --force replaces it', async () => {
    const out = folder('out-force');
    const file = join(out, 'r.csv');
    writeFileSync(file, 'mine\n');
    const kept = await query(['--out', file, 'SELECT 1 AS a']);
    expect(kept.code).toBe(2);
    expect(kept.stderr).toMatch(/--out .*r\.csv exists; pass --force to replace it/);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
    expect((await query(['--out', file, '--force', 'SELECT 1 AS a'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('a\n1\n');
    expect(readdirSync(out)).toEqual(['r.csv']);
  });

  it('bad input is exit 2 and writes nothing', async () => {
    const out = folder('out-bad');
    const cases: Array<[string[], RegExp]> = [
      [['--out', join(out, 'r.xlsx'), 'SELECT 1'], /name the file \.csv, \.json, \.jsonl or \.parquet/],
      [['--out', out, 'SELECT 1'], /name the file/],
      [['--out', join(out, 'r.csv'), '--format', 'json', 'SELECT 1'], /is csv by its name, but --format says json/],
      [['--force', 'SELECT 1'], /--force goes with --out FILE/],
      [['--out', join(out, 'r.csv'), 'SELECT nope'], /query failed: .*nope/],
      [['--out', join(out, 'r.parquet'), 'DELETE FROM levels'], /query refused: DELETE is not a read/],
      // One SELECT on its own, but it would close COPY's parentheses: refused, nothing written anywhere.
      [['--out', join(out, 'r.parquet'), `SELECT 1) TO '${join(out, 'evil.csv')}' (FORMAT csv); --`], /query (failed|refused)/],
    ];
    for (const [args, message] of cases) {
      const result = await query(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
    const nested = await query(['--out', join(out, 'new', 'deeper', 'r.csv'), 'SELECT nope']);
    expect(nested.code).toBe(2);
    const dirOut = folder('out-is-a-folder.csv');
    const folderResult = await query(['--out', dirOut, 'SELECT 1']);
    expect(folderResult.code).toBe(2);
    expect(folderResult.stderr).toMatch(/is a folder; name a file/);
    expect(readdirSync(out)).toEqual([]);
  });

  it.each(['csv', 'parquet'])(
    'a cancelled .%s leaves neither the file nor its temp',
    async (format) => {
      const out = folder(`out-cancel-${format}`);
      // Rows keep coming (a few MB a second), so the temp file has content when the timeout stops it.
      const result = await query(['--timeout', '1', '--out', join(out, `r.${format}`), 'SELECT i FROM range(10000000000) t(i) WHERE i % 1000 = 0']);
      expect(result.code, result.stderr).toBe(124);
      expect(readdirSync(out)).toEqual([]);
    },
    60_000,
  );
});

describe('one escaping rule for the terminal', () => {
  it('table headers and cells: controls shown as \\xNN, on a terminal and off it', async () => {
    const sql = `SELECT ${HOSTILE_TEXT} AS "h${'\u001b'}[31mred"`;
    for (const terminal of [true, false]) {
      const result = await query([sql], { terminal });
      expect(result.stdout).not.toMatch(RAW_CONTROL);
      expect(result.stdout).toContain('h\\x1b[31mred');
      expect(result.stdout).toContain('ok\\x1b]0;pwned\\x07\\x9b31m');
    }
  });

  it('csv on a terminal escaped; to a pipe or a file byte for byte', async () => {
    const sql = `SELECT ${HOSTILE_TEXT} AS a`;
    const terminal = await query(['--format', 'csv', sql], { terminal: true });
    expect(terminal.stdout).toBe('a\nok\\x1b]0;pwned\\x07\\x9b31m\n');
    const piped = await query(['--format', 'csv', sql]);
    expect(piped.stdout).toBe('a\nok\u001b]0;pwned\u0007\u009b31m\n');
    const file = join(folder('out-raw'), 'a.csv');
    expect((await query(['--out', file, sql], { terminal: true })).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(piped.stdout);
  });

  it('json and jsonl: C1 controls as \\u escapes, the same values', async () => {
    const sql = `SELECT ${HOSTILE_TEXT} AS a`;
    for (const format of ['json', 'jsonl']) {
      const result = await query(['--format', format, sql], { terminal: true });
      expect(result.stdout).not.toMatch(RAW_CONTROL);
      expect(result.stdout).toContain('\\u009b31m');
      expect(JSON.stringify(JSON.parse(format === 'json' ? result.stdout : `[${result.stdout}]`))).toContain('\\u001b]0;pwned');
    }
  });

  it('--json error objects: U+009B from the SQL as \\u009b', async () => {
    const result = await query(['--json', 'SELECT "col\u009b"']);
    expect(result.code).toBe(2);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stdout).toContain('col\\u009b');
    expect(JSON.parse(result.stdout).error.message).toContain('col\u009b');
    expect(result.stderr).not.toMatch(RAW_CONTROL);
  });

  it("commander's own errors quote the argv escaped", async () => {
    const result = await query(['--x\u001b]0;pwned\u0007', 'SELECT 1']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr).toContain("unknown option '--x\\x1b]0;pwned\\x07'");
  });
});
